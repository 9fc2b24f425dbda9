// Benchmark plumbing shared by the bench/*.ts scripts: a real `blume serve` child process on
// loopback, plain HTTP calls to it (node:http, so the Host header can name a site), a signed-up
// account with a static site and deploy token, uploads, and `wrk` runs parsed into numbers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, createReadStream, openSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Sites live under this domain; the portal answers on 127.0.0.1. */
export const SITES_DOMAIN = 'blume.test';

/**
 * The server's log level in a bench: `npm start`'s own (none set, so `info`) unless BENCH_LOG_LEVEL
 * asks for a tuned row; benches measure the shipped default.
 */
export function benchLogLevel(): Record<string, string> {
  return process.env.BENCH_LOG_LEVEL ? { BLUME_LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {};
}
const START_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_MS = 300_000;

export interface BlumeServer {
  child: ChildProcess;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

let built = false;

/** The node flags of `npm start` (package.json), so a benchmark runs the server with them too. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const match = /^(?:exec )?node (.*?)\s*bin\/blume\.js serve$/.exec(pkg.scripts.start);
  if (!match)
    throw new Error(`package.json's start script is not "node [flags] bin/blume.js serve": ${pkg.scripts.start}`);
  return match[1]!.split(' ').filter(Boolean);
}

/**
 * Starts `blume serve` as `npm start` does, with its node flags: the compiled dist/ (built once per bench run with
 * `npm run build`), since tsx's transform adds per-call helpers production never runs. BENCH_TSX=1
 * runs src/main.ts under tsx instead. Resolves once the server prints where it listens. Its output
 * goes to `logFile`, not into this process, so request logs cost the server what they cost in
 * production and nothing here. BENCH_BLUME_NODE_ARGS are extra node flags for the server only
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
export function startServer(
  env: Record<string, string>,
  logFile: string,
  serveArgs: string[] = [],
): Promise<BlumeServer> {
  const nodeArgs = process.env.BENCH_BLUME_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const useTsx = process.env.BENCH_TSX === '1';
  if (!useTsx && !built) {
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 });
    if (build.status !== 0) throw new Error('npm run build failed');
    built = true;
  }
  const entry = useTsx ? ['--import', 'tsx', 'src/main.ts'] : ['bin/blume.js'];
  return startListening(
    [...startFlags(), ...nodeArgs, ...entry, 'serve', ...serveArgs],
    { BLUME_BIND: '127.0.0.1:0', BLUME_PUBLIC_URL: `http://${SITES_DOMAIN}`, NODE_ENV: 'development', ...env },
    logFile,
  );
}

/** Runs `node <args>` and waits for its "listening on 127.0.0.1:<port>" (or single-mode "is running on") line. */
export async function startListening(
  args: string[],
  env: Record<string, string>,
  logFile: string,
): Promise<BlumeServer> {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const log = await readFile(logFile, 'utf8');
    const match = /(?:listening on|is running on) (?:http:\/\/)?127\.0\.0\.1:(\d+)/.exec(log);
    if (match) {
      return {
        child,
        port: Number(match[1]),
        pid: child.pid!,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
          await exited;
          clearTimeout(timer);
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not start:\n${log}`);
    }
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpCall {
  port: number;
  method?: string;
  path: string;
  host?: string;
  headers?: Record<string, string | number>;
  body?: Buffer | string | (() => NodeJS.ReadableStream);
  agent?: http.Agent;
}

/** One HTTP request to 127.0.0.1; the body may be a stream factory for large uploads. */
export function request(call: HttpCall): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: call.port,
        method: call.method ?? 'GET',
        path: call.path,
        headers: { host: call.host ?? `127.0.0.1:${call.port}`, ...call.headers },
        agent: call.agent ?? false,
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${call.method ?? 'GET'} ${call.path} timed out`)));
    req.on('error', reject);
    if (typeof call.body === 'function') call.body().pipe(req);
    else req.end(call.body);
  });
}

function jsonCall(
  port: number,
  method: string,
  path: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const body = JSON.stringify(payload);
  return request({
    port,
    method,
    path,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
    body,
  });
}

function expectStatus(answer: HttpAnswer, status: number, what: string): void {
  if (answer.status !== status)
    throw new Error(`${what}: expected ${status}, got ${answer.status}: ${answer.body.toString().slice(0, 500)}`);
}

/** A forum API token for a member, minted with their password through the server. */
export async function mintForumToken(port: number, login: string, password: string): Promise<string> {
  const body = JSON.stringify({ login, password, name: 'bench' });
  const minted = await request({
    port,
    method: 'POST',
    path: '/api/forum/v1/auth/tokens',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    body,
  });
  if (minted.status !== 201) throw new Error(`token: ${minted.status} ${minted.body.toString()}`);
  return (JSON.parse(minted.body.toString()) as { token: string }).token;
}

export interface DeploySite {
  site: string;
  token: string;
}

/** Signs up an account through the portal API, creates a static site and mints a deploy token. */
export async function createSiteWithToken(port: number, site: string): Promise<DeploySite> {
  const signup = await jsonCall(port, 'POST', '/api/auth/signup', {
    username: `bench${site.replace(/-/g, '')}`.slice(0, 30),
    email: `${site}@bench.test`,
    password: 'bench-password-0123456789',
  });
  expectStatus(signup, 201, 'sign-up');
  const cookie = String(signup.headers['set-cookie']?.find((c) => c.startsWith('blume_session='))?.split(';', 1)[0]);
  expectStatus(
    await jsonCall(port, 'POST', '/api/sites', { id: site, kind: 'static' }, { cookie }),
    201,
    'create site',
  );
  const minted = await jsonCall(port, 'POST', `/api/sites/${site}/deploy-tokens`, { name: 'bench' }, { cookie });
  expectStatus(minted, 201, 'deploy token');
  return { site, token: (JSON.parse(minted.body.toString()) as { token: string }).token };
}

/** Streams an archive file as the multipart field `archive`; answers the response (201 expected). */
export async function uploadArchive(port: number, target: DeploySite, archivePath: string): Promise<HttpAnswer> {
  const boundary = `----blumebench${Date.now().toString(16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="${path.basename(archivePath)}"\r\nContent-Type: application/gzip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = (await stat(archivePath)).size;
  return request({
    port,
    method: 'POST',
    path: `/api/deploy/${target.site}`,
    headers: {
      authorization: `Bearer ${target.token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': head.length + size + tail.length,
    },
    body: () => {
      const out = new PassThrough();
      out.write(head);
      const file = createReadStream(archivePath);
      file.on('end', () => out.end(tail));
      file.on('error', (error) => out.destroy(error));
      file.pipe(out, { end: false });
      return out;
    },
  });
}

export async function deployAndPromote(port: number, target: DeploySite, archivePath: string): Promise<string> {
  const uploaded = await uploadArchive(port, target, archivePath);
  expectStatus(uploaded, 201, 'upload');
  const release = (JSON.parse(uploaded.body.toString()) as { id: string }).id;
  expectStatus(await promote(port, target, release), 200, 'promote');
  return release;
}

export function promote(port: number, target: DeploySite, release: string, agent?: http.Agent): Promise<HttpAnswer> {
  const body = JSON.stringify({ release });
  return request({
    port,
    method: 'POST',
    path: `/api/deploy/${target.site}/promote`,
    headers: {
      authorization: `Bearer ${target.token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
    body,
    ...(agent ? { agent } : {}),
  });
}

export function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: string;
  /** CPU time wrk used (user + system), in CPUs: 1 means it kept one CPU busy the whole run. */
  clientCpus: number;
}

function toMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

/**
 * Runs wrk with `--latency` (bounded by its own duration plus a margin) and parses the summary;
 * `script` is a Lua file of wrk's (a `request` function that varies the requests, say).
 */
export async function runWrk(
  url: string,
  options: {
    connections: number;
    seconds: number;
    threads: number;
    headers?: Record<string, string>;
    cpu?: number;
    script?: string;
  },
): Promise<WrkResult> {
  const headerArgs = Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const pin = options.cpu === undefined ? [] : ['taskset', '-c', String(options.cpu)];
  const script = options.script === undefined ? [] : ['-s', options.script];
  const wrk = [
    ...pin,
    'wrk',
    '-t',
    String(options.threads),
    '-c',
    String(options.connections),
    '-d',
    `${options.seconds}s`,
    '--timeout',
    '5s',
    '--latency',
    ...script,
    ...headerArgs,
    url,
  ];
  // bash's `times` prints the CPU time its children used, wrk's, after wrk's own summary. Run
  // without blocking, so that the bench's own loops (writers beside the readers) keep going.
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['-c', '"$@" && times', 'wrk', ...wrk], {
      timeout: (options.seconds + 30) * 1000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}${run.stdout}`);
  const out = run.stdout;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = /\s50%\s+([\d.]+)(us|ms|s|m)\b/.exec(out);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s|m)\b/.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const errors = /Socket errors:.*$/m.exec(out);
  if (!rps || !p50 || !p99) throw new Error(`cannot parse wrk output:\n${out}`);
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: toMs(p50[1]!, p50[2]!),
    p99Ms: toMs(p99[1]!, p99[2]!),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    errors: errors ? errors[0] : '',
    clientCpus: childrenCpuSeconds(out) / options.seconds,
  };
}

/**
 * wrk against `url` after a warm-up of `warmUpSeconds` (none at 0), refusing a run in which any
 * answer was not 2xx (`label` names the run in the error).
 */
export async function measuredWrk(
  label: string,
  url: string,
  options: Parameters<typeof runWrk>[1],
  warmUpSeconds = 2,
): Promise<WrkResult> {
  if (warmUpSeconds > 0) await runWrk(url, { ...options, seconds: warmUpSeconds });
  const result = await runWrk(url, options);
  if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} non-2xx answers; no measurement`);
  return result;
}

/** The children's user + system seconds from the last line `times` printed (`0m1.25s 0m3.50s`). */
function childrenCpuSeconds(out: string): number {
  const lines = out.trimEnd().split('\n');
  const times = [...(lines.at(-1) ?? '').matchAll(/(\d+)m([\d.]+)s/g)];
  return times.reduce((sum, [, minutes, seconds]) => sum + Number(minutes) * 60 + Number(seconds), 0);
}

/** User + system seconds a process and all its descendants used so far (from /proc; 0 elsewhere). */
export function cpuSecondsOfTree(pid: number): number {
  const tick = 100; // USER_HZ, 100 on every Linux this runs on
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const own = (Number(fields[11]) + Number(fields[12])) / tick;
    const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
    return children.reduce((sum, child) => sum + cpuSecondsOfTree(child), own);
  } catch {
    return 0;
  }
}

/**
 * Pins every thread of a running process to one CPU (`taskset`), so a load generator pinned to
 * another CPU does not compete with it. Threads the process starts later inherit the pin.
 */
export function pinToCpu(pid: number, cpu: number): void {
  const run = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`taskset failed for ${pid}: ${run.stderr}`);
}

/**
 * A process's resident memory in MiB by kind of mapping (`/proc/<pid>/smaps`): `heap` (the main
 * allocator heap), `arenas` (glibc's 64 MiB-aligned per-thread arenas), `binary` (node itself),
 * `files` (other mapped files) and `anonymous` (V8's heap, WebAssembly memory, large buffers).
 */
export function memoryMap(pid: number): Record<string, number> {
  const map: Record<string, number> = {};
  let kind = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range) {
      const start = BigInt(`0x${range[1]}`);
      const mib = Number(BigInt(`0x${range[2]}`) - start) / 1024 / 1024;
      const name = range[3]!;
      if (name === '[heap]') kind = 'heap';
      else if (name === process.execPath || name.endsWith('/node')) kind = 'binary';
      else if (name.startsWith('/')) kind = 'files';
      else if (name.startsWith('[')) kind = 'other';
      else kind = start % (64n << 20n) === 0n && mib <= 64 ? 'arenas' : 'anonymous';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) map[kind] = (map[kind] ?? 0) + Number(rss[1]) / 1024;
  }
  return map;
}

/** Peak resident set size of a process in MiB (VmHWM), or undefined once it is gone. */
export async function peakRssMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Date, CPU, cores and load: the context every printed result needs. */
export function machineLine(): string {
  const cpu = spawnSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], {
    encoding: 'utf8',
  }).stdout.trim();
  const cores = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim();
  const load = spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');
  return `${new Date().toISOString()} | ${cpu} | ${cores} cores | load ${load} | node ${process.version}`;
}
