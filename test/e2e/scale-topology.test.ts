// compose.scale.yaml, started from the file's own settings with processes instead of containers
// (test/helpers/scale-topology.ts): the one-off migrate, two `blume serve` replicas on PostgreSQL,
// Redis and an S3 server, and Debian's HAProxy with docker/haproxy.cfg. docs/scaling.md's commands
// run word for word. Through the load balancer: a static site is deployed, promoted and rolled back
// and forum topics are written while a replica crashes and restarts, then both replicas are replaced
// one by one as the rolling upgrade says. Readers keep asking meanwhile; no answer is ever wrong,
// and requests fail only in flight at the moment a replica stopped, never for longer than one
// health-check interval.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import S3rver from 's3rver';
import { multipartBody, siteArchive } from '../helpers/archives.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { docCommands, stepOf, type CommandRule, type DocCommand } from '../helpers/doc-commands.js';
import { eventually } from '../helpers/eventually.js';
import { runCommand } from '../helpers/process.js';
import {
  HAPROXY_BINARY,
  readCompose,
  readEnvFile,
  ScaleTopology,
  type ComposeService,
} from '../helpers/scale-topology.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const ADMIN = { login: 'admin', password: 'correct-horse-battery-staple' };
const COMPOSE = 'docker compose -f compose.scale.yaml';

type Step =
  | { kind: 'skip'; reason: string }
  | { kind: 'up' }
  | { kind: 'exec'; service: string; args: string }
  | { kind: 'run'; service: string }
  | { kind: 'replace'; service: string }
  | { kind: 'shell'; command: string };

/** How each command of docs/scaling.md runs here. Every command must match exactly one rule. */
const RULES: Array<CommandRule<Step>> = [
  {
    pattern: /^cp \.env\.scale\.example \.env$/,
    step: () => ({ kind: 'skip', reason: 'the test reads .env.scale.example and fills in its blanks' }),
  },
  { pattern: new RegExp(`^${COMPOSE} up -d$`), step: () => ({ kind: 'up' }) },
  {
    pattern: new RegExp(`^${COMPOSE} exec (blume-\\d+) blume (.+)$`),
    step: (m) => ({ kind: 'exec', service: m[1]!, args: m[2]! }),
  },
  { pattern: new RegExp(`^${COMPOSE} run --rm (migrate)$`), step: (m) => ({ kind: 'run', service: m[1]! }) },
  {
    pattern: new RegExp(`^${COMPOSE} up -d --no-deps --wait (blume-\\d+)$`),
    step: (m) => ({ kind: 'replace', service: m[1]! }),
  },
  // The rotation checks' frontend, published on the host's 127.0.0.1:8404, listens on a free port here.
  {
    pattern: /^until curl -fsS http:\/\/127\.0\.0\.1:8404\/blume-\d+; do sleep 1; done$/,
    step: (m) => ({ kind: 'shell', command: m[0] }),
  },
];

function stepFor(command: DocCommand): Step {
  return stepOf('docs/scaling.md', RULES, command.section, command.command);
}

/** .env.scale.example with its blanks filled in: the S3 server's account stands for MinIO's root user. */
function dotenv(): Record<string, string> {
  const example = readEnvFile('.env.scale.example');
  const filled = {
    SECRET_KEY: 'scale-topology-secret-key-scale-topology-secret',
    POSTGRES_PASSWORD: 'replaced-by-the-test-database',
    S3_ACCESS_KEY: 'S3RVER',
    S3_SECRET_KEY: 'S3RVER',
  };
  for (const name of Object.keys(filled))
    assert.equal(example[name], '', `.env.scale.example leaves ${name} to the operator`);
  return { ...example, ...filled };
}

interface Answer {
  status: number;
  body: string;
  node: string;
  cookie: string;
}

/** One request through the load balancer's TLS frontend to `host` (SNI and Host), the certificate verified. */
function viaBalancer(
  topology: ScaleTopology,
  agent: https.Agent,
  host: string,
  method: string,
  url: string,
  options: { headers?: Record<string, string>; json?: unknown; body?: Buffer } = {},
): Promise<Answer> {
  const payload = options.json === undefined ? options.body : Buffer.from(JSON.stringify(options.json));
  const headers = {
    host,
    ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
    ...(payload ? { 'content-length': String(payload.length) } : {}),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const request = https.request(
      {
        host: '127.0.0.1',
        port: topology.tlsPort,
        servername: host,
        ca: topology.certificate,
        agent,
        method,
        path: url,
        headers,
        timeout: 20_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            node: String(response.headers['x-blume-node'] ?? ''),
            cookie: (response.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!).join('; '),
          }),
        );
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 20 s')));
    request.on('error', reject);
    request.end(payload);
  });
}

function body<T>(answer: Answer): T {
  return JSON.parse(answer.body) as T;
}

interface Outcome {
  what: string;
  start: number;
  end: number;
  node: string;
  /** A request that failed (no answer, or 5xx from the balancer). */
  failed?: string;
  /** An answer that is not what the platform holds. Never allowed. */
  wrong?: string;
}

/** Readers asking through the balancer in loops until stopped; each answer judged when it arrives. */
class Readers {
  readonly outcomes: Outcome[] = [];
  private running = true;
  private readonly loops: Array<Promise<void>> = [];

  add(
    what: string,
    ask: () => Promise<Answer>,
    judge: (answer: Answer, start: number) => string | undefined,
    pauseMs: number,
  ): void {
    this.loops.push(
      (async () => {
        while (this.running) {
          const start = Date.now();
          const outcome = await ask().then(
            (answer): Outcome => ({
              what,
              start,
              end: Date.now(),
              node: answer.node,
              ...(answer.status >= 500
                ? { failed: `${answer.status} ${answer.body.slice(0, 200)}` }
                : { wrong: judge(answer, start) }),
            }),
            (error: Error): Outcome => ({ what, start, end: Date.now(), node: '', failed: error.message }),
          );
          this.outcomes.push(outcome);
          await new Promise((resolve) => setTimeout(resolve, pauseMs));
        }
      })(),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

/** The live release as the test changed it, when: a read may answer any release live while it was asked. */
class LiveRelease {
  private readonly changes: Array<{ to: string; begun: number; done: number }>;
  constructor(first: string) {
    this.changes = [{ to: first, begun: 0, done: 0 }];
  }

  async change(to: string, action: () => Promise<void>): Promise<void> {
    const change = { to, begun: Date.now(), done: Infinity };
    this.changes.push(change);
    await action();
    change.done = Date.now();
  }

  /** The release live when a read began, and every one a change in flight during the read went to. */
  allowed(start: number, end: number): string[] {
    const before = this.changes.filter((c) => c.done <= start).at(-1)!;
    return [...new Set([before.to, ...this.changes.filter((c) => c.begun <= end && c.done >= start).map((c) => c.to)])];
  }
}

const openssl = spawnSync('openssl', ['version']).status === 0;
const skip =
  !postgresUrl || !redisUrl
    ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL'
    : !existsSync(HAPROXY_BINARY)
      ? `needs Debian's haproxy at ${HAPROXY_BINARY} (apt-get install -y haproxy)`
      : !openssl
        ? 'needs openssl'
        : false;

describe('compose.scale.yaml as processes: two replicas behind HAProxy', { skip }, () => {
  const services: Record<string, ComposeService> = readCompose(dotenv());
  const replicas = ScaleTopology.replicaNames(services);

  it('shares every setting between the replicas, migrates once, and balances on /up/databases', async () => {
    assert.deepEqual(replicas, ['blume-1', 'blume-2']);
    const [first, ...others] = replicas.map((name) => services[name]!);
    for (const other of others)
      assert.deepEqual(other.environment, first!.environment, 'one environment for every replica');
    assert.deepEqual(
      services.migrate!.environment,
      first!.environment,
      "the migration runs with the replicas' settings",
    );
    for (const name of [
      'SECRET_KEY',
      'DATABASE_URL',
      'BLUME_REDIS_URL',
      'BLUME_S3_ENDPOINT',
      'BLUME_S3_BUCKET',
      'BLUME_PUBLIC_URL',
      'BLUME_SITES_DOMAIN',
    ])
      assert.ok(first!.environment![name], `${name} is set`);
    assert.deepEqual(
      [
        first!.environment!.BLUME_MODE,
        first!.environment!.BLUME_AUTO_MIGRATE,
        first!.environment!.BLUME_BLOBS,
        first!.environment!.BLUME_REDIS_ENABLED,
      ],
      ['platform', 'False', 's3', 'True'],
    );
    assert.deepEqual(services.migrate!.command, ['db', 'upgrade']);
    assert.equal(services.migrate!.image, first!.image);
    assert.deepEqual(first!.depends_on, {
      migrate: { condition: 'service_completed_successfully' },
      redis: { condition: 'service_healthy' },
      bucket: { condition: 'service_completed_successfully' },
    });
    assert.match(
      services.bucket!.command![0]!,
      new RegExp(`mc mb --ignore-existing store/${first!.environment!.BLUME_S3_BUCKET}$`),
      'the bucket service makes the bucket the replicas use',
    );
    assert.equal(
      first!.environment!.BLUME_TRUST_PROXY,
      ScaleTopology.balancerAddress(services),
      'the replicas trust the balancer only',
    );

    const config = await readFile(path.join(ROOT, 'docker/haproxy.cfg'), 'utf8');
    assert.match(config, /^\s+option httpchk GET \/up\/databases$/m);
    assert.match(config, /^\s+balance roundrobin$/m);
    assert.match(config, /^\s+http-request disable-l7-retry unless METH_GET$/m, 'writes are never replayed');
    for (const name of replicas) assert.match(config, new RegExp(`^\\s+server ${name} ${name}:8080$`, 'm'));
    assert.ok(services.haproxy!.volumes!.includes('./docker/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro'));

    const commands = await docCommands('docs/scaling.md');
    assert.deepEqual([...new Set(commands.map((c) => c.section))], ['Start', 'Rolling upgrades']);
    for (const command of commands) stepFor(command);
    assert.throws(() => stepFor({ section: 'test', command: `${COMPOSE} restart blume-1` }), /no single mapping/);
  });

  describe('running', () => {
    let folder: string;
    let database: TestDatabase;
    let s3: S3rver;
    let redis: Redis;
    /** The Redis database number the replicas use, 0 until an empty one was found. */
    let redisDatabase = 0;
    let topology: ScaleTopology;
    // Stopped here too, so that a failed step does not leave them asking forever.
    const readers = new Readers();
    const agent = new https.Agent({ keepAlive: true });

    before(async () => {
      folder = await mkdtemp(path.join(tmpdir(), 'blume-scale-'));
      database = await createTestDatabase('postgres', { migrate: false });
      const bucket = services['blume-1']!.environment!.BLUME_S3_BUCKET!;
      s3 = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: path.join(folder, 's3'),
        configureBuckets: [{ name: bucket }],
      });
      const { port: s3Port } = await s3.run();
      // Rate-limit counters and caches of their own: an empty Redis database number.
      redis = new Redis(redisUrl!, { lazyConnect: true });
      await redis.connect();
      for (const candidate of [...Array(15).keys()].map((n) => n + 1).sort(() => Math.random() - 0.5)) {
        await redis.select(candidate);
        if ((await redis.dbsize()) === 0) {
          redisDatabase = candidate;
          break;
        }
      }
      assert.ok(redisDatabase > 0, 'an empty Redis database');
      const redisHere = new URL(redisUrl!);
      redisHere.pathname = `/${redisDatabase}`;
      topology = new ScaleTopology(
        services,
        { postgres: database.url!, redis: redisHere.toString(), minio: `http://127.0.0.1:${s3Port}` },
        folder,
      );
    });
    after(async () => {
      await readers.stop();
      agent.destroy();
      await topology?.down();
      if (redisDatabase > 0) await redis.flushdb();
      redis?.disconnect();
      await s3?.close();
      await database?.drop();
      await rm(folder, { recursive: true, force: true });
    });

    it(
      'deploys, promotes, rolls back and writes through the balancer while a replica crashes, then upgrades one replica at a time',
      { timeout: 240_000 },
      async () => {
        const env = services['blume-1']!.environment!;
        const portal = new URL(env.BLUME_PUBLIC_URL!).hostname;
        const site = `home.${env.BLUME_SITES_DOMAIN}`;
        const club = `club.${env.BLUME_SITES_DOMAIN}`;
        const ask = (host: string, method: string, url: string, options: Parameters<typeof viaBalancer>[5] = {}) =>
          viaBalancer(topology, agent, host, method, url, options);
        const expect = async (status: number, answer: Promise<Answer>): Promise<Answer> => {
          const got = await answer;
          assert.equal(got.status, status, got.body);
          return got;
        };
        /** When a replica stopped: requests in flight then may fail, for at most one health-check interval. */
        const stops: number[] = [];
        const commands = await docCommands('docs/scaling.md');
        const perform = async (command: DocCommand): Promise<void> => {
          const step = stepFor(command);
          if (step.kind === 'up') return topology.up();
          if (step.kind === 'exec') return void (await topology.run(step.service, step.args));
          if (step.kind === 'run') return void (await topology.run(step.service));
          if (step.kind === 'replace') {
            stops.push(Date.now());
            return topology.replaceReplica(step.service);
          }
          if (step.kind === 'shell') {
            const result = await runCommand(
              ['sh', '-c', step.command.replace('127.0.0.1:8404', `127.0.0.1:${topology.rotationPort}`)],
              {},
              ROOT,
            );
            assert.equal(result.status, 0, result.stderr);
            assert.equal(result.stdout, 'in the rotation');
          }
        };

        for (const command of commands.filter((c) => c.section === 'Start')) await perform(command);

        const login = await expect(200, ask(portal, 'POST', '/api/auth/login', { json: ADMIN }));
        const session = { cookie: login.cookie };
        await expect(
          201,
          ask(portal, 'POST', '/api/sites', { headers: session, json: { id: 'home', kind: 'static' } }),
        );
        const deployToken = body<{ token: string }>(
          await expect(
            201,
            ask(portal, 'POST', '/api/sites/home/deploy-tokens', { headers: session, json: { name: 'ci' } }),
          ),
        ).token;
        const bearer = { authorization: `Bearer ${deployToken}` };
        const deploy = async (page: string): Promise<string> => {
          const upload = multipartBody('archive', await siteArchive({ 'index.html': page }));
          return body<{ id: string }>(
            await expect(
              201,
              ask(portal, 'POST', '/api/deploy/home', {
                headers: { ...bearer, ...upload.headers },
                body: upload.payload,
              }),
            ),
          ).id;
        };
        const promote = (release: string) => async () =>
          void (await expect(
            200,
            ask(portal, 'POST', '/api/deploy/home/promote', { headers: bearer, json: { release } }),
          ));
        const monday = await deploy('monday');
        await promote(monday)();

        await expect(
          201,
          ask(portal, 'POST', '/api/sites', {
            headers: session,
            json: { id: 'club', kind: 'community', plan: 'business' },
          }),
        );
        const forumToken = body<{ token: string }>(
          await expect(201, ask(club, 'POST', '/api/forum/v1/auth/tokens', { json: { ...ADMIN, name: 'scale' } })),
        ).token;
        const member = { 'authentication-token': forumToken };
        await expect(
          201,
          ask(club, 'POST', '/api/forum/v1/forums', { headers: member, json: { name: 'General', slug: 'general' } }),
        );
        const written: Array<{ title: string; at: number }> = [];
        const writeTopic = async (title: string): Promise<void> => {
          await expect(
            201,
            ask(club, 'POST', '/api/forum/v1/topics', {
              headers: member,
              json: { forum_id: 'general', title, body: `${title}, through the load balancer.` },
            }),
          );
          written.push({ title, at: Date.now() });
        };
        await writeTopic('Before anything stopped');

        const live = new LiveRelease('monday');
        readers.add(
          'site',
          () => ask(site, 'GET', '/'),
          (answer, start) => {
            const allowed = live.allowed(start, Date.now());
            return answer.status === 200 && allowed.includes(answer.body)
              ? undefined
              : `${answer.status} ${answer.body}, expected one of ${allowed.join(', ')}`;
          },
          10,
        );
        readers.add(
          'topics',
          () => ask(club, 'GET', '/api/forum/v1/topics?forum_id=general', { headers: member }),
          (answer, start) => {
            if (answer.status !== 200) return `${answer.status} ${answer.body}`;
            const titles = body<Array<{ title: string }>>(answer).map((t) => t.title);
            const missing = written.filter((w) => w.at < start && !titles.includes(w.title)).map((w) => w.title);
            return missing.length > 0 ? `missing ${missing.join(', ')}` : undefined;
          },
          250,
        );
        /** Reads `page` from every replica through the balancer: each answers it. */
        const everyReplicaServes = (page: string) =>
          eventually(`every replica to serve ${page}`, async () => {
            const seen = new Set<string>();
            for (let i = 0; i < 2 * replicas.length; i++) {
              const answer = await ask(site, 'GET', '/');
              assert.equal(answer.body, page, `${answer.node} serves ${page}`);
              seen.add(answer.node);
            }
            return seen.size === replicas.length ? true : undefined;
          });
        await everyReplicaServes('monday');

        // blume-1 crashes; its restart policy starts it again while the deploy, promote and write run.
        stops.push(Date.now());
        await topology.stopReplica('blume-1', 'SIGKILL');
        const restarting = topology.startReplica('blume-1');
        const tuesday = await deploy('tuesday');
        await live.change('tuesday', promote(tuesday));
        await writeTopic('Written while blume-1 restarts');
        await restarting;
        await topology.inRotation('blume-1');
        await live.change(
          'monday',
          async () => void (await expect(200, ask(portal, 'POST', '/api/deploy/home/rollback', { headers: bearer }))),
        );
        await everyReplicaServes('monday');
        await writeTopic('Written after blume-1 came back');

        // The rolling upgrade, word for word, with the readers asking.
        for (const command of commands.filter((c) => c.section === 'Rolling upgrades')) await perform(command);
        await live.change('tuesday', promote(tuesday));
        await everyReplicaServes('tuesday');
        await readers.stop();

        const wrong = readers.outcomes.filter((o) => o.wrong);
        assert.deepEqual(
          wrong.map((o) => `${o.what} via ${o.node}: ${o.wrong}`),
          [],
          'every answer is right',
        );
        const interval =
          Number(/ inter (\d+)s /.exec(await readFile(path.join(ROOT, 'docker/haproxy.cfg'), 'utf8'))![1]) * 1000;
        const failed = readers.outcomes.filter(
          (o) => o.failed && !stops.some((stop) => o.end >= stop && o.start <= stop + interval),
        );
        assert.deepEqual(
          failed.map((o) => `${o.what} at +${o.start - stops[0]!} ms: ${o.failed}`),
          [],
          `requests fail only within ${interval} ms of a replica stopping\n${topology.log().slice(-4000)}`,
        );
        for (const what of ['site', 'topics'])
          assert.ok(
            readers.outcomes.filter((o) => o.what === what && !o.failed).length > 10,
            `${what} was read all along`,
          );
        assert.deepEqual(
          new Set(readers.outcomes.map((o) => o.node).filter(Boolean)),
          new Set(replicas),
          'both replicas answered the readers',
        );
        const topics = body<Array<{ title: string }>>(
          await expect(200, ask(club, 'GET', '/api/forum/v1/topics?forum_id=general', { headers: member })),
        );
        assert.deepEqual(
          topics.map((t) => t.title).sort(),
          written.map((w) => w.title).sort(),
          'every topic written once',
        );
      },
    );
  });
});
