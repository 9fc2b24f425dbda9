// Benchmark: the static edge. A small HTML page and a 200 KiB asset are deployed through the real
// deploy API into `blume serve` processes on loopback; the same files are served by one nginx
// worker (sendfile on) and by @fastify/static, the named anchors, in the same run. The same wrk
// load hits each; prints req/s and p99 per server and file, and the ratios Blume/nginx and
// Blume/@fastify/static. Targets: Blume >= 0.6x nginx, p99 <= 5 ms at 50 connections, Blume faster
// than @fastify/static.
//   npm run bench:edge [-- seconds connections]
// Each server is measured BENCH_ROUNDS times (default 3), the servers taking turns, and judged on
// its median run: on a shared VM one run's p99 swings by milliseconds (nginx's included).
// The rows: Blume as `npm start` runs it (its node flags, no settings: log level `info`, the
// static fast path on, its buffered access log in a file), judged against nginx writing its
// access log (combined format, `buffer=64k flush=1s`, as Blume's is buffered) and shown beside
// nginx with `access_log off`; Blume at BENCH_LOG_LEVEL (default `warn`: no per-request logging)
// for comparison; @fastify/static; and a bare `node:http` ceiling.
// On a machine with two or more CPUs every server runs pinned to CPU 0 and wrk to CPU 1, so the load
// generator does not steal the server's core mid-request; BENCH_PIN=0 turns that off.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import {
  cpuSecondsOfTree,
  createSiteWithToken,
  deployAndPromote,
  hasCommand,
  machineLine,
  pinToCpu,
  request,
  runWrk,
  SITES_DOMAIN,
  sleep,
  startListening,
  startServer,
  type BlumeServer,
  type WrkResult,
} from './lib/blume.js';
import { recordRun } from './lib/history.js';

recordRun('edge');

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 50);
const WARMUP_SECONDS = 2;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const TARGET_NGINX_RATIO = 0.6;
const TARGET_P99_MS = 5;
const SITE = 'edgebench';
const PIN = process.env.BENCH_PIN !== '0' && availableParallelism() >= 2 && hasCommand('taskset');
const SERVER_CPU = 0;
const WRK_CPU = 1;
// wrk gets as many threads as CPUs it runs on: two threads sharing one pinned CPU take turns in
// scheduler slices, which shows up in every server's p99 as the load generator's own wait.
const THREADS = PIN ? 1 : 2;

const HTML = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Edge bench</title><link rel="stylesheet" href="/assets/site.css"></head>\n<body><h1>Hello from the edge</h1><p>${'A small page of ordinary text. '.repeat(20)}</p><img src="/assets/photo.5d41402a.jpg" alt=""></body></html>\n`;

const NODE_CEILING = `
const http = require('node:http'), fs = require('node:fs'), path = require('node:path');
const root = process.argv[1];
const files = new Map([['/', fs.readFileSync(path.join(root, 'index.html'))], ['/assets/photo.5d41402a.jpg', fs.readFileSync(path.join(root, 'assets/photo.5d41402a.jpg'))]]);
const server = http.createServer((req, res) => {
  const body = files.get(req.url);
  if (!body) { res.writeHead(404).end(); return; }
  res.writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'image/jpeg', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => console.log('listening on 127.0.0.1:' + server.address().port));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
`;

interface Anchor {
  name: string;
  port: number;
  host: string;
  /** The server's process; its CPU time, with its children's (nginx's worker), is reported per run. */
  pid: number;
  stop(): Promise<void>;
}

async function writeSite(root: string): Promise<void> {
  await mkdir(path.join(root, 'assets'), { recursive: true });
  await writeFile(path.join(root, 'index.html'), HTML);
  // Random bytes: a photo-like asset that no server can shrink, so every server sends the same bytes.
  await writeFile(path.join(root, 'assets', 'photo.5d41402a.jpg'), randomBytes(200 * 1024));
}

/** `access_log off`, or as nginx writes it at its defaults (combined format) with a buffer. */
type NginxLog = 'off' | 'buffered';

function nginxConfig(work: string, site: string, log: NginxLog): string {
  const accessLog = log === 'off' ? 'access_log off;' : `access_log ${work}/access.log combined buffer=64k flush=1s;`;
  return `worker_processes 1;
daemon off;
pid ${work}/nginx.pid;
error_log ${work}/nginx-error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  ${accessLog}
  client_body_temp_path ${work}/nginx-body;
  proxy_temp_path ${work}/nginx-proxy;
  fastcgi_temp_path ${work}/nginx-fastcgi;
  uwsgi_temp_path ${work}/nginx-uwsgi;
  scgi_temp_path ${work}/nginx-scgi;
  server {
    listen 127.0.0.1:PORT;
    root ${site};
    etag on;
  }
}
`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** nginx runs unprivileged: as root, this drops to `nobody`, which then needs to read the site. */
const NOBODY = 65534;

async function startNginx(parent: string, site: string, log: NginxLog): Promise<Anchor> {
  const port = await freePort();
  const work = path.join(parent, `nginx-log-${log}`);
  await mkdir(work);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await chown(work, NOBODY, NOBODY);
    await chmod(parent, 0o755);
  }
  const conf = path.join(work, 'nginx.conf');
  await writeFile(conf, nginxConfig(work, site, log).replace('PORT', String(port)));
  // `-e` keeps nginx from opening the system error log before it reads our configuration.
  const pin = PIN ? ['taskset', '-c', String(SERVER_CPU)] : [];
  const [command, ...args] = [...pin, 'nginx', '-p', work, '-c', conf, '-e', path.join(work, 'nginx-error.log')];
  const child = spawn(command!, args, { stdio: 'ignore', ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 100; i += 1) {
    try {
      if ((await request({ port, path: '/' })).status === 200) break;
    } catch {
      await sleep(100);
    }
  }
  return {
    name: log === 'off' ? 'nginx (access_log off)' : 'nginx (access_log)',
    port,
    host: '127.0.0.1',
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGQUIT');
      await exited;
    },
  };
}

interface Run {
  result: WrkResult;
  /** The server's CPU use during the run, in CPUs. */
  serverCpus: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The median of each figure over the rounds, with the spread of req/s and p99 when there are several. */
interface Summary {
  requestsPerSecond: number;
  p99Ms: number;
  line: string;
}

function summarize(runs: Run[]): Summary {
  const rps = runs.map((r) => r.result.requestsPerSecond);
  const p99 = runs.map((r) => r.result.p99Ms);
  const requestsPerSecond = median(rps);
  const p99Ms = median(p99);
  const cpu = (cpus: number) => `${(cpus * 100).toFixed(0).padStart(3)}%`;
  const spread = (values: number[], digits: number) =>
    runs.length > 1 ? ` (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})` : '';
  const failures = runs
    .filter((r) => r.result.non2xx > 0 || r.result.errors)
    .map((r) => `${r.result.non2xx} non-2xx; ${r.result.errors}`);
  const line =
    `${requestsPerSecond.toFixed(0).padStart(8)} req/s${spread(rps, 0)}   p50 ${median(runs.map((r) => r.result.p50Ms)).toFixed(2)} ms   ` +
    `p99 ${p99Ms.toFixed(2)} ms${spread(p99, 2)}   CPU server ${cpu(median(runs.map((r) => r.serverCpus)))} wrk ${cpu(median(runs.map((r) => r.result.clientCpus)))}` +
    (failures.length > 0 ? `  (${failures.join(', ')})` : '');
  return { requestsPerSecond, p99Ms, line };
}

/** Starts a Blume server with `env` over the settings' defaults, with the site deployed. */
async function startBlume(
  work: string,
  name: string,
  env: Record<string, string>,
  archive: string,
): Promise<BlumeServer> {
  const server = await startServer(
    { BLUME_DATA_DIR: path.join(work, `data-${name}`), BLUME_SIGNUP_OPEN: 'True', ...env },
    path.join(work, `blume-${name}.log`),
  );
  try {
    await deployAndPromote(server.port, await createSiteWithToken(server.port, SITE), archive);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function main(): Promise<void> {
  for (const command of ['wrk', 'nginx', 'tar']) {
    if (!hasCommand(command)) throw new Error(`${command} is not installed (apt-get install -y nginx wrk)`);
  }
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-edge-'));
  const site = path.join(work, 'site');
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
  const running: Anchor[] = [];
  const nodeServers: BlumeServer[] = [];
  try {
    await writeSite(site);
    const archive = path.join(work, 'site.tar.gz');
    spawnSync('tar', ['-czf', archive, '-C', site, '.'], { stdio: 'inherit' });

    const blumeDefault = await startBlume(work, 'default', {}, archive);
    nodeServers.push(blumeDefault);
    running.push({
      name: 'Blume (default)',
      port: blumeDefault.port,
      host: `${SITE}.${SITES_DOMAIN}`,
      pid: blumeDefault.pid,
      stop: () => blumeDefault.stop(),
    });
    const blumeLevel = await startBlume(work, logLevel, { BLUME_LOG_LEVEL: logLevel }, archive);
    nodeServers.push(blumeLevel);
    running.push({
      name: `Blume (log ${logLevel})`,
      port: blumeLevel.port,
      host: `${SITE}.${SITES_DOMAIN}`,
      pid: blumeLevel.pid,
      stop: () => blumeLevel.stop(),
    });

    running.push(await startNginx(work, site, 'buffered'));
    running.push(await startNginx(work, site, 'off'));
    const anchor = await startListening(
      ['--import', 'tsx', 'bench/lib/static-anchor.ts', site],
      {},
      path.join(work, 'static.log'),
    );
    nodeServers.push(anchor);
    running.push({
      name: '@fastify/static',
      port: anchor.port,
      host: '127.0.0.1',
      pid: anchor.pid,
      stop: () => anchor.stop(),
    });
    // Not an anchor with a target: node:http answering from memory with no routing at all, the
    // ceiling any Node server reaches here; it shows how much of the gap to nginx is Node's.
    const ceiling = await startListening(['-e', NODE_CEILING, site], {}, path.join(work, 'ceiling.log'));
    nodeServers.push(ceiling);
    running.push({
      name: 'node:http ceiling',
      port: ceiling.port,
      host: '127.0.0.1',
      pid: ceiling.pid,
      stop: () => ceiling.stop(),
    });

    const files = [
      { label: 'index.html (small page)', path: '/' },
      { label: '200 KiB asset', path: '/assets/photo.5d41402a.jpg' },
    ];
    // Each server must answer the same bytes before it is timed.
    for (const file of files) {
      const bodies = await Promise.all(running.map((r) => request({ port: r.port, path: file.path, host: r.host })));
      for (const [i, answer] of bodies.entries()) {
        if (answer.status !== 200 || !answer.body.equals(bodies[0]!.body))
          throw new Error(`${running[i]!.name} answered ${answer.status} with other bytes for ${file.path}`);
      }
    }

    // nginx was started pinned (its worker inherits the pin); the Node servers are pinned now.
    if (PIN) for (const server of nodeServers) pinToCpu(server.pid, SERVER_CPU);
    const layout = PIN ? `, servers on CPU ${SERVER_CPU}, wrk on CPU ${WRK_CPU}` : ', unpinned';
    console.log(
      `Static edge: ${CONNECTIONS} connections, ${THREADS} wrk threads, ${SECONDS} s per run, median of ${ROUNDS} rounds${layout}`,
    );
    console.log(machineLine());
    for (const file of files) {
      console.log(`\n${file.label}`);
      const runs = new Map<string, Run[]>(running.map((r) => [r.name, []]));
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const r of running) {
          const url = `http://127.0.0.1:${r.port}${file.path}`;
          const options = {
            connections: CONNECTIONS,
            threads: THREADS,
            headers: { Host: r.host },
            ...(PIN ? { cpu: WRK_CPU } : {}),
          };
          await runWrk(url, { ...options, seconds: WARMUP_SECONDS });
          const cpuBefore = cpuSecondsOfTree(r.pid);
          const result = await runWrk(url, { ...options, seconds: SECONDS });
          runs.get(r.name)!.push({ result, serverCpus: (cpuSecondsOfTree(r.pid) - cpuBefore) / SECONDS });
        }
      }
      const summaries = running.map((r) => {
        const summary = summarize(runs.get(r.name)!);
        console.log(`  ${r.name.padEnd(24)} ${summary.line}`);
        return summary;
      });
      const [blume, blumeAtLevel, nginxLogged, nginxQuiet, fastifyStatic, node] = summaries as [
        Summary,
        Summary,
        Summary,
        Summary,
        Summary,
        Summary,
      ];
      const ratio = (a: Summary, b: Summary) => `${(a.requestsPerSecond / b.requestsPerSecond).toFixed(2)}x`;
      console.log(
        `  Blume (default)/nginx (access_log) ${ratio(blume, nginxLogged)} (target >= ${TARGET_NGINX_RATIO})   /nginx (access_log off) ${ratio(blume, nginxQuiet)}   ` +
          `/@fastify/static ${ratio(blume, fastifyStatic)} (target > 1)   p99 ${blume.p99Ms.toFixed(2)} ms (target <= ${TARGET_P99_MS})`,
      );
      console.log(
        `  (Blume (log ${logLevel})/nginx (access_log off) ${ratio(blumeAtLevel, nginxQuiet)}, node:http ceiling/nginx (access_log off) ${ratio(node, nginxQuiet)}, Blume (default)/ceiling ${ratio(blume, node)})`,
      );
      const met =
        blume.requestsPerSecond / nginxLogged.requestsPerSecond >= TARGET_NGINX_RATIO &&
        blume.requestsPerSecond > fastifyStatic.requestsPerSecond &&
        blume.p99Ms <= TARGET_P99_MS;
      console.log(`  ${met ? 'targets met' : 'TARGET MISSED'} at the default configuration`);
    }
  } finally {
    for (const r of running) await r.stop();
    // Started but not yet listed when setup failed.
    for (const server of nodeServers) await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
