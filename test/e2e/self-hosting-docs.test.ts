// docs/self-hosting.md, word for word: every command of its `sh` blocks runs as the image would run
// it, through docker/entrypoint.sh with the image's environment (BLUME_MODE=single, a fresh
// PostgreSQL database, Redis), once with the server stopped and once with it running. A command the
// test cannot run here is mapped below with the reason; a command without a mapping fails the test.
// Each pass ends as an operator would: the admin logs in at /login, mints a forum token, turns on
// anonymous reads with CORS for one origin, restarts the instance, and a guest on that origin reads.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { stepOf, type CommandRule } from '../helpers/doc-commands.js';
import {
  BLUME_CLI_FROM_SOURCES,
  loginOnForum,
  runCommand,
  startServer,
  type CliResult,
  type RunningServer,
} from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRYPOINT = path.join(ROOT, 'docker/entrypoint.sh');
const DOC = path.join(ROOT, 'docs/self-hosting.md');
const PUBLIC_ORIGIN = 'https://forum.example.com';
const APP_ORIGIN = 'https://app.example.com';
const ADMIN = { login: 'admin', password: 'correct-horse-battery-staple' };
const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

interface DocCommand {
  section: string;
  text: string;
}

/** The commands of the page's `sh` blocks, one a line, with the section each is in. */
function docCommands(markdown: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let section = '';
  let inBlock = false;
  for (const line of markdown.split('\n')) {
    if (!inBlock && line.startsWith('## ')) section = line.slice(3).trim();
    if (line.startsWith('```')) {
      inBlock = !inBlock && line.trim() === '```sh';
      continue;
    }
    if (inBlock && line.trim() !== '' && !line.trim().startsWith('#')) commands.push({ section, text: line.trim() });
  }
  return commands;
}

type Step =
  | { kind: 'skip'; reason: string }
  /** `docker compose up -d`: (re)create the container, i.e. (re)start the server. */
  | { kind: 'start' }
  /** A blume command in the container: `docker/entrypoint.sh <args>`, args as the shell splits them. */
  | { kind: 'blume'; args: string; via: 'exec' | 'run' }
  /** Run by `sh` on this machine as written, with the public origin pointing at the server. */
  | { kind: 'shell'; command: string }
  /** `export TOKEN=...`: the token of the previous answer. */
  | { kind: 'token' };

/** How each command of the page runs here. Every command must match exactly one rule. */
const RULES: Array<CommandRule<Step>> = [
  {
    pattern: /^cp \.env\.example \.env$/,
    step: () => ({
      kind: 'skip',
      reason: 'the test gives the container the environment compose.yaml builds from .env',
    }),
  },
  {
    pattern: /^docker compose ps$/,
    step: () => ({
      kind: 'skip',
      reason: 'no container engine here; the test waits for /up/ as the image health check does',
    }),
  },
  { pattern: /^docker compose up -d( blume)?$/, step: () => ({ kind: 'start' }) },
  { pattern: /^docker compose exec blume blume (.+)$/, step: (m) => ({ kind: 'blume', args: m[1]!, via: 'exec' }) },
  { pattern: /^docker compose run --rm blume ((?!-).+)$/, step: (m) => ({ kind: 'blume', args: m[1]!, via: 'run' }) },
  {
    // The compose file's postgres service is the test's PostgreSQL: same client, the URL instead of user and database names.
    pattern: /^docker compose exec -T postgres (pg_dump|pg_restore) -U blume (.*)$/,
    step: (m) => ({
      kind: 'shell',
      command: `${m[1]} ${m[2]!.replace(/(^| )-d blume( |$)/, '$1-d "$DATABASE_URL"$2').replace(/ blume( >|$)/, ' -d "$DATABASE_URL"$1')}`,
    }),
  },
  {
    // The container's /data volume is the server's data directory, owned by the image's user (uid
    // 1000), whom tar runs as; the redirection is the operator's shell, as root, in the test's folder,
    // which uid 1000 may not write to (as a root-owned folder on a host).
    pattern: /^docker compose run --rm -T --entrypoint tar blume czf - -C \/data \. > (\S+)$/,
    step: (m) => ({
      kind: 'shell',
      command: `chown -R 1000:1000 "$BLUME_DATA_DIR" && (cd "$BLUME_DATA_DIR" && setpriv --reuid 1000 --regid 1000 --clear-groups tar czf - .) > ${m[1]!} && tar tzf ${m[1]!} >/dev/null`,
    }),
  },
  { pattern: /^curl .+$/, step: (m) => ({ kind: 'shell', command: m[0] }) },
  { pattern: /^export TOKEN='blu_ft_\.\.\.'$/, step: () => ({ kind: 'token' }) },
];

function stepFor(command: DocCommand): Step {
  return stepOf('docs/self-hosting.md', RULES, command.section, command.text);
}

/** One operator following the page: a fresh database, the server stopped or running at first. */
class Operator {
  server: RunningServer | undefined;
  token = '';
  last: CliResult | undefined;
  readonly log: string[] = [];

  constructor(
    readonly env: Record<string, string>,
    readonly folder: string,
  ) {}

  async start(): Promise<void> {
    await this.stop();
    this.server = await startServer(['sh', ENTRYPOINT], this.env);
    const health = await fetch(`${this.server.url}/up/`);
    assert.equal(health.status, 200);
  }

  async stop(): Promise<void> {
    if (this.server) assert.equal(await this.server.stop(), 0, this.server.output());
    this.server = undefined;
  }

  async blume(args: string): Promise<CliResult> {
    // The image's working directory holds the code; BLUME_CLI runs it from the sources here.
    const result = await runCommand(['sh', '-c', `sh "$ENTRYPOINT" ${args}`], { ...this.env, ENTRYPOINT }, ROOT);
    assert.equal(result.status, 0, `entrypoint ${args}: ${result.stderr}`);
    return result;
  }

  async perform(command: DocCommand, step: Step): Promise<void> {
    this.log.push(`${this.server ? 'running' : 'stopped'}: ${command.text}`);
    switch (step.kind) {
      case 'skip':
        return;
      case 'start':
        return this.start();
      case 'blume':
        this.last = await this.blume(step.args);
        return;
      case 'token': {
        const answer = JSON.parse(this.last!.stdout) as { token: string };
        assert.match(answer.token, /^blu_ft_/);
        this.token = answer.token;
        return;
      }
      case 'shell': {
        const needsServer = step.command.includes(PUBLIC_ORIGIN);
        assert.ok(!needsServer || this.server, `\`${command.text}\` needs the server running`);
        const command_ = needsServer ? step.command.replaceAll(PUBLIC_ORIGIN, this.server!.url) : step.command;
        this.last = await runCommand(['sh', '-c', command_], { ...this.env, TOKEN: this.token }, this.folder);
        assert.equal(this.last.status, 0, `${command_}: ${this.last.stderr}${this.last.stdout}`);
      }
    }
  }
}

const missingTools = ['curl', 'pg_dump', 'pg_restore', 'tar', 'setpriv'].filter(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
);
const skip =
  !postgresUrl || !redisUrl
    ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL'
    : process.getuid?.() !== 0
      ? 'runs the backup as the image user, uid 1000: needs root'
      : missingTools.length > 0
        ? `needs ${missingTools.join(', ')} (apt-get install -y curl postgresql-client)`
        : false;

describe('docs/self-hosting.md, every command', { skip }, () => {
  const commands = docCommands(readFileSync(DOC, 'utf8'));
  const databases: TestDatabase[] = [];
  const folders: string[] = [];

  async function operator(): Promise<Operator> {
    const database = await createTestDatabase('postgres', { migrate: false });
    databases.push(database);
    const folder = await mkdtemp(path.join(tmpdir(), 'blume-selfhost-'));
    folders.push(folder);
    // The image's environment (Dockerfile ENV) and what compose.yaml adds.
    const env = {
      BLUME_CLI: BLUME_CLI_FROM_SOURCES,
      NODE_ENV: 'production',
      BLUME_MODE: 'single',
      GUNICORN_BIND: '127.0.0.1:0',
      BLUME_DATA_DIR: path.join(folder, 'data'),
      BLUME_AUTO_MIGRATE: 'True',
      DATABASE_URL: database.url!,
      SECRET_KEY: 'self-hosting-docs-secret-key-self-hosting-docs',
      BLUME_PUBLIC_URL: PUBLIC_ORIGIN,
      BLUME_REDIS_ENABLED: 'True',
      BLUME_REDIS_URL: redisUrl!,
      BLUME_TRUST_PROXY: 'uniquelocal',
    };
    return new Operator(env, folder);
  }

  /** The end of the flow: log in at /login, token, public read with CORS for one origin, a guest reads. */
  async function finish(op: Operator, via: 'cli' | 'api'): Promise<void> {
    const origin = op.server!.url;
    const login = await loginOnForum(origin, ADMIN.login, ADMIN.password);
    assert.equal(login.status, 303, 'the first admin logs in on the forum');
    assert.match(login.page, /admin<\/strong> · admin@example\.com · admin/);
    const minted = await fetch(`${origin}/api/forum/v1/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ADMIN, name: 'check' }),
    });
    assert.equal(minted.status, 201, await minted.clone().text());
    const { token } = (await minted.json()) as { token: string };

    const guest = () => fetch(`${origin}/api/forum/v1/forums`, { headers: { origin: APP_ORIGIN } });
    if (via === 'cli') {
      assert.equal((await guest()).status, 401, 'no anonymous reads before they are turned on');
      await op.blume(`settings set FORUM_API_PUBLIC_READ=true API_CORS_ORIGINS=${APP_ORIGIN}`);
      assert.equal((await guest()).status, 401, 'saved is not applied');
      await op.blume('settings apply');
    }
    const read = await guest();
    assert.equal(read.status, 200, await read.clone().text());
    assert.equal(read.headers.get('access-control-allow-origin'), APP_ORIGIN);
    const forums = (await read.json()) as Array<{ slug: string }>;
    assert.ok(Array.isArray(forums));
    const settings = await fetch(`${origin}/api/instances/community/env`, {
      headers: { 'authentication-token': token },
    });
    assert.equal(settings.status, 200);
    assert.equal(((await settings.json()) as Record<string, string>).API_CORS_ORIGINS, APP_ORIGIN);
  }

  after(async () => {
    for (const database of databases) await database.drop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('maps every command of the page', () => {
    assert.ok(commands.length >= 15, `found ${commands.length} commands`);
    for (const command of commands) stepFor(command);
    assert.throws(() => stepFor({ section: 'test', text: 'docker compose restart blume' }), /no single mapping/);
  });

  it('with the server stopped: the `run --rm` first admin, every command, then log in and read as a guest', async () => {
    const op = await operator();
    try {
      let started = false;
      for (const command of commands) {
        const step = stepFor(command);
        // `exec` runs in a running container; its `run --rm` twin is this pass's first admin.
        if (step.kind === 'blume' && step.via === 'exec' && step.args.startsWith('create-admin')) continue;
        // Commands that talk to the server over HTTP wait for the running pass; the first `up -d`
        // after the stopped-server commands starts it for the end of the flow.
        if (step.kind === 'shell' && step.command.includes(PUBLIC_ORIGIN)) continue;
        if (step.kind === 'token') continue;
        if (step.kind === 'start') {
          started = true;
          continue;
        }
        await op.perform(command, step);
      }
      assert.ok(started);
      await op.start();
      await finish(op, 'cli');
    } finally {
      await op.stop();
    }
  });

  it('with the server running: every command in order, then log in and read as a guest', async () => {
    const op = await operator();
    try {
      await op.start();
      for (const command of commands) {
        const step = stepFor(command);
        // `run --rm` of the first admin is the stopped-server twin of the `exec` one run here.
        if (step.kind === 'blume' && step.via === 'run' && step.args.startsWith('create-admin')) continue;
        await op.perform(command, step);
      }
      const health = await fetch(`${op.server!.url}/up/databases`);
      assert.equal(health.status, 200);
      await finish(op, 'api');
      const forums = (await (
        await fetch(`${op.server!.url}/api/forum/v1/forums`, { headers: { origin: APP_ORIGIN } })
      ).json()) as Array<{ slug: string }>;
      assert.deepEqual(
        forums.map((forum) => forum.slug),
        ['general'],
        'the forum made with the documented call survives the backup and restore',
      );
    } finally {
      await op.stop();
    }
  });
});
