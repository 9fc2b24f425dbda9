// compose.scale.yaml as processes instead of containers: each Blume container's command runs through
// docker/entrypoint.sh with the image's environment (the Dockerfile's ENV) and the compose file's,
// interpolated from the filled-in .env.scale.example, with each compose service's host name replaced
// by what stands for it here: the test's PostgreSQL (a fresh database), Redis (an empty database
// number), an s3rver, loopback ports for the replicas. HAProxy runs docker/haproxy.cfg with only
// where things are rewritten: its listening addresses, the certificate folder, the servers' addresses.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { eventually } from './eventually.js';
import { freePort } from './ports.js';
import { BLUME_CLI_FROM_SOURCES, runCommand, startServer, type CliResult, type RunningServer } from './process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRYPOINT = path.join(ROOT, 'docker/entrypoint.sh');
export const HAPROXY_BINARY = '/usr/sbin/haproxy';

export interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[]; start_interval?: string };
  ports?: string[];
  volumes?: string[];
  networks?: string[] | Record<string, { ipv4_address?: string }>;
}

/** Compose's variable syntax: `${NAME}`, `${NAME:-default}`, `${NAME:?error}`, `$$` for `$`. */
function interpolate(text: string, variables: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{(\w+)(?::([-?])([^}]*))?\}/g,
    (whole, name: string | undefined, operator: string | undefined, argument: string | undefined) => {
      if (whole === '$$') return '$';
      const value = variables[name!] ?? '';
      if (value !== '') return value;
      if (operator === '?') throw new Error(`compose.scale.yaml: ${name} is not set (${argument})`);
      return operator === '-' ? argument! : '';
    },
  );
}

function interpolateAll(value: unknown, variables: Record<string, string>): unknown {
  if (typeof value === 'string') return interpolate(value, variables);
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, variables));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateAll(item, variables)]));
  return value;
}

/** NAME=value lines of an env file. */
export function readEnvFile(file: string): Record<string, string> {
  const entries = readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
  return Object.fromEntries(entries);
}

/** The services of compose.scale.yaml, anchors resolved and variables interpolated as `docker compose` does. */
export function readCompose(dotenv: Record<string, string>): Record<string, ComposeService> {
  const document = parse(readFileSync(path.join(ROOT, 'compose.scale.yaml'), 'utf8')) as {
    services: Record<string, ComposeService>;
  };
  return interpolateAll(document.services, dotenv) as Record<string, ComposeService>;
}

/** The runtime stage's ENV of the Dockerfile: what every container starts with. */
function imageEnvironment(): Record<string, string> {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
  const line = /^ENV (.+)$/m.exec(runtime)![1]!;
  return Object.fromEntries([...line.matchAll(/(\w+)=(?:"([^"]*)"|(\S+))/g)].map((m) => [m[1]!, m[2] ?? m[3]!]));
}

/** What stands in for each compose service that a URL in the environment names. */
export interface LocalServices {
  postgres: string;
  redis: string;
  minio: string;
}

export class ScaleTopology {
  readonly replicas = new Map<
    string,
    { port: number; env: Record<string, string>; server?: RunningServer; starting?: Promise<void> }
  >();
  private haproxy: ChildProcess | undefined;
  private haproxyLog = '';
  /** Where HAProxy's frontends listen here: `web` (TLS), `replicas` (rotation checks). */
  tlsPort = 0;
  rotationPort = 0;
  /** The self-signed certificate HAProxy presents, for BLUME_HOST and *.BLUME_SITES_DOMAIN. */
  certificate = '';

  constructor(
    readonly services: Record<string, ComposeService>,
    private readonly local: LocalServices,
    private readonly folder: string,
  ) {}

  /** The replicas: services that run the Blume image with `serve`. */
  static replicaNames(services: Record<string, ComposeService>): string[] {
    return Object.keys(services).filter(
      (name) => services[name]!.image?.startsWith('localhost/blume:') && services[name]!.command?.[0] === 'serve',
    );
  }

  /** The load balancer's fixed address on the `edge` network, which the replicas trust. */
  static balancerAddress(services: Record<string, ComposeService>): string {
    const networks = services.haproxy!.networks as Record<string, { ipv4_address?: string }>;
    return networks.edge!.ipv4_address!;
  }

  /** A Blume container's environment as it runs here. */
  environment(service: string, port?: number): Record<string, string> {
    const env: Record<string, string> = {
      ...imageEnvironment(),
      ...this.services[service]!.environment,
      BLUME_CLI: BLUME_CLI_FROM_SOURCES,
    };
    for (const [name, value] of Object.entries(env)) {
      const host = /^[a-z]+:\/\/(?:[^@/]*@)?([a-z0-9-]+)[:/]/.exec(value)?.[1];
      if (host && host in this.local) env[name] = this.local[host as keyof LocalServices];
    }
    env.BLUME_TRUST_PROXY = env.BLUME_TRUST_PROXY!.replace(ScaleTopology.balancerAddress(this.services), '127.0.0.1');
    env.GUNICORN_BIND = env.GUNICORN_BIND!.replace(/^0\.0\.0\.0:8080$/, `127.0.0.1:${port ?? 0}`);
    // The image's data volume: one per container.
    env.BLUME_DATA_DIR = path.join(this.folder, service);
    const services = Object.keys(this.services).join('|');
    for (const [name, value] of Object.entries(env))
      assert.doesNotMatch(
        value,
        new RegExp(`//([^@/]*@)?(${services})[:/]`),
        `${service}: ${name} still names a compose service`,
      );
    return env;
  }

  /** Runs a one-off Blume container's command (or `args`) to completion, as `docker compose run --rm`. */
  async run(service: string, args = this.services[service]!.command!.join(' ')): Promise<CliResult> {
    const result = await runCommand(
      ['sh', '-c', `sh "$ENTRYPOINT" ${args}`],
      { ...this.environment(service), ENTRYPOINT },
      ROOT,
    );
    assert.equal(result.status, 0, `${service} ${args}: ${result.stderr}`);
    return result;
  }

  /** `docker compose up -d`: the one-off services, then the replicas, then the load balancer once every replica is in its rotation. */
  async up(): Promise<void> {
    await this.run('migrate');
    const names = ScaleTopology.replicaNames(this.services);
    for (const name of names) {
      const port = await freePort();
      this.replicas.set(name, { port, env: this.environment(name, port) });
    }
    await Promise.all(names.map((name) => this.startReplica(name)));
    await this.startHaproxy();
    for (const name of names) await this.inRotation(name);
  }

  startReplica(name: string): Promise<void> {
    const replica = this.replicas.get(name)!;
    replica.starting = startServer(['sh', ENTRYPOINT, ...this.services[name]!.command!], replica.env).then((server) => {
      replica.server = server;
    });
    return replica.starting;
  }

  /** Stops a replica: SIGTERM as `docker compose up -d` replacing it, SIGKILL as a crash. */
  async stopReplica(name: string, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const replica = this.replicas.get(name)!;
    const code = await replica.server!.stop(signal);
    assert.equal(code, signal === 'SIGTERM' ? 0 : -1, replica.server!.output());
    replica.server = undefined;
  }

  /** `up -d --no-deps --wait <replica>`: replaced, then the container health check (the compose file's) until it passes. */
  async replaceReplica(name: string): Promise<void> {
    await this.stopReplica(name, 'SIGTERM');
    await this.startReplica(name);
    const check = this.services[name]!.healthcheck!.test.slice(1);
    assert.deepEqual(check, ['node', '/app/docker/healthcheck.mjs']);
    const env = { PATH: process.env.PATH ?? '', GUNICORN_BIND: this.replicas.get(name)!.env.GUNICORN_BIND! };
    await eventually(`${name} to pass its health check`, () =>
      spawnSync(process.execPath, [path.join(ROOT, 'docker/healthcheck.mjs')], { env }).status === 0 ? true : undefined,
    );
  }

  /** HAProxy's own view: the replica is in the rotation. */
  inRotation(name: string): Promise<true> {
    return eventually(`HAProxy to put ${name} in the rotation`, async () =>
      (await fetch(`http://127.0.0.1:${this.rotationPort}/${name}`).catch(() => undefined))?.status === 200
        ? true
        : undefined,
    );
  }

  private async startHaproxy(): Promise<void> {
    const hosts = this.services['blume-1']!.environment!;
    const certs = path.join(this.folder, 'certs');
    await mkdir(certs, { recursive: true });
    const portal = new URL(hosts.BLUME_PUBLIC_URL!).hostname;
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${portal}`,
        '-addext',
        `subjectAltName=DNS:${portal},DNS:*.${hosts.BLUME_SITES_DOMAIN}`,
        '-keyout',
        '-',
        '-out',
        '-',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    await writeFile(path.join(certs, 'blume.pem'), made.stdout);
    this.certificate = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(made.stdout)![0];

    const [httpPort, tlsPort, rotationPort] = [await freePort(), await freePort(), await freePort()];
    this.tlsPort = tlsPort;
    this.rotationPort = rotationPort;
    let config = readFileSync(path.join(ROOT, 'docker/haproxy.cfg'), 'utf8');
    const rewrites: Array<[RegExp, string]> = [
      [/^(\s+bind) :8080$/m, `$1 127.0.0.1:${httpPort}`],
      [/^(\s+bind) :8443 ssl crt \/usr\/local\/etc\/haproxy\/certs\/$/m, `$1 127.0.0.1:${tlsPort} ssl crt ${certs}/`],
      [/^(\s+bind) :8404$/m, `$1 127.0.0.1:${rotationPort}`],
      ...[...this.replicas].map(([name, { port }]): [RegExp, string] => [
        new RegExp(`^(\\s+server ${name}) ${name}:8080$`, 'm'),
        `$1 127.0.0.1:${port}`,
      ]),
    ];
    for (const [pattern, replacement] of rewrites) {
      assert.match(config, pattern, `docker/haproxy.cfg has a line ${pattern}`);
      config = config.replace(pattern, replacement);
    }
    const file = path.join(this.folder, 'haproxy.cfg');
    await writeFile(file, config);
    const haproxy = spawn(HAPROXY_BINARY, ['-f', file, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.haproxy = haproxy;
    for (const stream of [haproxy.stdout, haproxy.stderr])
      stream.on('data', (chunk: Buffer) => (this.haproxyLog += chunk.toString()));
    await eventually('HAProxy to listen', async () => {
      if (haproxy.exitCode !== null) throw new Error(`haproxy exited with ${haproxy.exitCode}: ${this.haproxyLog}`);
      return (await fetch(`http://127.0.0.1:${rotationPort}/`).catch(() => undefined)) ? true : undefined;
    });
  }

  /** HAProxy's log: one line a request, and every replica it took out or put back. */
  log(): string {
    return this.haproxyLog;
  }

  async down(): Promise<void> {
    if (this.haproxy && this.haproxy.exitCode === null) {
      const exited = new Promise((resolve) => this.haproxy!.once('exit', resolve));
      this.haproxy.kill('SIGTERM');
      await exited;
    }
    // A replica still starting (a step failed meanwhile) is stopped once it listens.
    await Promise.allSettled([...this.replicas.values()].map((replica) => replica.starting));
    for (const replica of this.replicas.values()) await replica.server?.stop();
  }
}
