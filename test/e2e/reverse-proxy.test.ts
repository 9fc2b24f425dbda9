// `blume serve` behind a real nginx on loopback, configured as docs/self-hosting.md tells operators:
// Host and X-Forwarded-Proto/-For/-Host forwarded. nginx listens in plain HTTP here and sends
// `X-Forwarded-Proto: https` as a TLS-terminating proxy would. Checks the Secure session cookie,
// absolute URLs under the forwarded scheme, and rate limiting by the forwarded client address.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBlume, startBlume, type RunningServer } from '../helpers/process.js';

const nginxBinary = ['nginx', '/usr/sbin/nginx'].find((candidate) => spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A request from a chosen loopback address (127.0.0.x), so the proxy sees distinct clients. */
function send(port: number, options: { method: string; path: string; host: string; from?: string; cookie?: string; headers?: Record<string, string>; body?: unknown }): Promise<Answer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        localAddress: options.from,
        headers: {
          host: options.host,
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...options.headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The nginx server block of docs/self-hosting.md, minus TLS, in a prefix the test owns. */
function nginxConfig(dir: string, listen: number, upstream: string): string {
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${listen};
    location / {
      proxy_pass ${upstream};
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-Host $host;
      proxy_set_header X-Forwarded-Proto https;
      proxy_set_header X-Forwarded-For $remote_addr;
    }
  }
}
`;
}

async function waitForPort(port: number, nginx: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nginx did not listen on ${port}: ${log()}`);
}

describe('blume behind nginx', { skip: nginxBinary ? false : 'nginx is not installed' }, () => {
  let dir: string;
  let server: RunningServer;
  let nginx: ChildProcess;
  let proxyPort: number;
  let directPort: number;
  const env: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'blume-nginx-'));
    Object.assign(env, {
      BLUME_DATA_DIR: path.join(dir, 'data'),
      NODE_ENV: 'production',
      SECRET_KEY: 'proxy-secret-key-proxy-secret-key-proxy',
      BLUME_PUBLIC_URL: 'http://blume.example',
      BLUME_RATE_LOGIN_PER_MINUTE: '3',
    });
    server = await startBlume([], env);
    directPort = Number(new URL(server.url).port);
    proxyPort = await freePort();
    const conf = path.join(dir, 'nginx.conf');
    writeFileSync(conf, nginxConfig(dir, proxyPort, server.url));
    let log = '';
    nginx = spawn(nginxBinary!, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    await waitForPort(proxyPort, nginx, () => log);
    // Through the control socket of the running server (embedded database); the spawnSync blocks
    // only this test process, not nginx or the server.
    const admin = await runBlume(['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'], env);
    assert.equal(admin.status, 0, admin.stderr);
  });

  after(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      await exited;
    }
    if (server) await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const login = (from: string, password = 'correct horse battery', headers: Record<string, string> = {}) =>
    send(proxyPort, { method: 'POST', path: '/api/auth/login', host: 'blume.example', from, headers, body: { login: 'admin', password } });

  it('marks the session cookie Secure, HttpOnly and SameSite=Lax', async () => {
    const answer = await login('127.0.0.2');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const cookie = (answer.headers['set-cookie'] ?? []).find((value) => value.startsWith('blume_session='));
    assert.ok(cookie);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Lax/);
  });

  it('answers absolute site URLs under the forwarded scheme and host, and direct ones under the direct', async () => {
    const answer = await login('127.0.0.3');
    const cookie = String(answer.headers['set-cookie']![0]).split(';')[0]!;
    const created = await send(proxyPort, { method: 'POST', path: '/api/sites', host: 'blume.example', from: '127.0.0.3', cookie, body: { id: 'hello', kind: 'static' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.url, 'https://hello.blume.example');
    const listed = await send(proxyPort, { method: 'GET', path: '/api/sites/hello', host: 'blume.example', from: '127.0.0.3', cookie });
    assert.equal(listed.body.url, 'https://hello.blume.example');
    // Without the proxy (an operator on the node itself) the same site is plain HTTP on the node's port.
    const direct = await send(directPort, { method: 'GET', path: '/api/sites/hello', host: `blume.example:${directPort}`, cookie });
    assert.equal(direct.body.url, `http://hello.blume.example:${directPort}`);
  });

  it('routes by the forwarded Host: an unknown site host through the proxy is not the portal', async () => {
    const answer = await send(proxyPort, { method: 'GET', path: '/api/me', host: 'nosuch.blume.example', from: '127.0.0.4' });
    assert.equal(answer.status, 404);
    assert.match(String(answer.body.detail ?? answer.body.title), /nosuch\.blume\.example|site/i);
  });

  it('rate-limits logins by the client address nginx forwards, which a client cannot forge', async () => {
    // 127.0.0.5 uses up its three attempts, even when it claims another address itself.
    for (let attempt = 0; attempt < 3; attempt++) {
      assert.equal((await login('127.0.0.5', 'wrong password!', { 'x-forwarded-for': `198.51.100.${attempt}` })).status, 401);
    }
    const limited = await login('127.0.0.5');
    assert.equal(limited.status, 429);
    assert.ok(limited.headers['retry-after']);
    // Another client behind the same proxy keeps its own budget.
    assert.equal((await login('127.0.0.6')).status, 200);
  });
});
