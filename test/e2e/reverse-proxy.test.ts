// `blume serve` behind a real nginx on loopback, configured as docs/self-hosting.md tells operators:
// HTTP/1.1 with upstream keepalive, Host and X-Forwarded-Proto/-For/-Host forwarded. nginx listens in plain HTTP here and sends
// `X-Forwarded-Proto: https` as a TLS-terminating proxy would. Checks the Secure session cookie,
// absolute URLs under the forwarded scheme, and rate limiting by the forwarded client address.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { multipartBody, siteArchive, tarball } from '../helpers/archives.js';
import { runBlume, startBlume, type RunningServer } from '../helpers/process.js';
import { freePort } from '../helpers/ports.js';

const nginxBinary = ['nginx', '/usr/sbin/nginx'].find(
  (candidate) => spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0,
);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A request from a chosen loopback address (127.0.0.x), so the proxy sees distinct clients. */
function send(
  port: number,
  options: {
    method: string;
    path: string;
    host: string;
    from?: string;
    cookie?: string;
    headers?: Record<string, string>;
    body?: unknown;
  },
): Promise<Answer> {
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
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * The nginx block of docs/self-hosting.md, minus TLS, in a prefix the test owns: HTTP/1.1 to Blume
 * over kept-alive upstream connections (an HTTP/1.0 proxy would never reach the socket front), and
 * uploads as large as Blume takes.
 */
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
  upstream blume {
    server ${upstream};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${listen};
    client_max_body_size 200m;
    location / {
      proxy_pass http://blume;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
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
    await new Promise((resolve) => setTimeout(resolve, 50));
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
    // As root, nginx's worker runs as nobody: it buffers upload bodies in a folder of its own.
    if (process.getuid?.() === 0) {
      await mkdir(path.join(dir, 'client_body'));
      await chown(path.join(dir, 'client_body'), 65534, 65534);
      await chmod(dir, 0o711);
    }
    Object.assign(env, {
      BLUME_DATA_DIR: path.join(dir, 'data'),
      NODE_ENV: 'production',
      SECRET_KEY: 'proxy-secret-key-proxy-secret-key-proxy',
      BLUME_PUBLIC_URL: 'http://blume.example',
      BLUME_RATE_LOGIN_PER_MINUTE: '3',
      // The default level: the static fast path's answers show in its access log.
      BLUME_LOG_LEVEL: 'info',
    });
    server = await startBlume([], env);
    directPort = Number(new URL(server.url).port);
    proxyPort = await freePort();
    const conf = path.join(dir, 'nginx.conf');
    writeFileSync(conf, nginxConfig(dir, proxyPort, new URL(server.url).host));
    let log = '';
    nginx = spawn(nginxBinary!, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    nginx.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    await waitForPort(proxyPort, nginx, () => log);
    // Through the control socket of the running server (embedded database); the spawnSync blocks
    // only this test process, not nginx or the server.
    const admin = await runBlume(
      ['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'],
      env,
    );
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
    send(proxyPort, {
      method: 'POST',
      path: '/api/auth/login',
      host: 'blume.example',
      from,
      headers,
      body: { login: 'admin', password },
    });

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
    const created = await send(proxyPort, {
      method: 'POST',
      path: '/api/sites',
      host: 'blume.example',
      from: '127.0.0.3',
      cookie,
      body: { id: 'hello', kind: 'static' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.url, 'https://hello.blume.example');
    const listed = await send(proxyPort, {
      method: 'GET',
      path: '/api/sites/hello',
      host: 'blume.example',
      from: '127.0.0.3',
      cookie,
    });
    assert.equal(listed.body.url, 'https://hello.blume.example');
    // Without the proxy (an operator on the node itself) the same site is plain HTTP on the node's port.
    const direct = await send(directPort, {
      method: 'GET',
      path: '/api/sites/hello',
      host: `blume.example:${directPort}`,
      cookie,
    });
    assert.equal(direct.body.url, `http://hello.blume.example:${directPort}`);
  });

  it('routes by the forwarded Host: an unknown site host through the proxy is not the portal', async () => {
    const answer = await send(proxyPort, {
      method: 'GET',
      path: '/api/me',
      host: 'nosuch.blume.example',
      from: '127.0.0.4',
    });
    assert.equal(answer.status, 404);
    assert.match(String(answer.body.detail ?? answer.body.title), /nosuch\.blume\.example|site/i);
  });

  it('rate-limits logins by the client address nginx forwards, which a client cannot forge', async () => {
    // 127.0.0.5 uses up its three attempts, even when it claims another address itself.
    for (let attempt = 0; attempt < 3; attempt++) {
      assert.equal(
        (await login('127.0.0.5', 'wrong password!', { 'x-forwarded-for': `198.51.100.${attempt}` })).status,
        401,
      );
    }
    const limited = await login('127.0.0.5');
    assert.equal(limited.status, 429);
    assert.ok(limited.headers['retry-after']);
    // Another client behind the same proxy keeps its own budget.
    assert.equal((await login('127.0.0.6')).status, 200);
  });

  /** A request through the proxy with a raw body and answer, failing after 10 s without one. */
  const through = (options: {
    method: string;
    path: string;
    host: string;
    headers?: Record<string, string>;
    body?: Buffer;
  }) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port: proxyPort,
          method: options.method,
          path: options.path,
          headers: { host: options.host, ...options.headers },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
        },
      );
      request.setTimeout(10_000, () =>
        request.destroy(new Error(`${options.method} ${options.path}: no answer through nginx within 10 s`)),
      );
      request.on('error', reject);
      request.end(options.body);
    });

  let deployToken = '';
  const uploadThrough = (archive: Buffer) => {
    const body = multipartBody('archive', archive);
    return through({
      method: 'POST',
      path: '/api/deploy/fast',
      host: 'blume.example',
      headers: { ...body.headers, authorization: `Bearer ${deployToken}` },
      body: body.payload,
    });
  };

  it('answers a static site in the fast path behind nginx, over kept-alive upstream connections', async () => {
    const answer = await login('127.0.0.7');
    const cookie = String(answer.headers['set-cookie']![0]).split(';')[0]!;
    const created = await send(proxyPort, {
      method: 'POST',
      path: '/api/sites',
      host: 'blume.example',
      from: '127.0.0.7',
      cookie,
      body: { id: 'fast', kind: 'static' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const minted = await send(proxyPort, {
      method: 'POST',
      path: '/api/sites/fast/deploy-tokens',
      host: 'blume.example',
      from: '127.0.0.7',
      cookie,
      body: { name: 'ci' },
    });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    deployToken = String(minted.body.token);
    const uploaded = await uploadThrough(await siteArchive({ 'index.html': '<!doctype html><title>fast</title>' }));
    assert.equal(uploaded.status, 201, uploaded.text);
    const release = String((JSON.parse(uploaded.text) as { id: string }).id);
    const promoted = await through({
      method: 'POST',
      path: '/api/deploy/fast/promote',
      host: 'blume.example',
      headers: { authorization: `Bearer ${deployToken}`, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ release })),
    });
    assert.equal(promoted.status, 200, promoted.text);
    const concurrent = 16 + 5;
    // The first request loads the site into memory (through the router); the rest are the fast path's.
    assert.equal((await through({ method: 'GET', path: '/', host: 'fast.blume.example' })).status, 200);
    // At once, more than the 16 nginx keeps, so it opens fresh upstream connections whatever the
    // tests before left idle: the socket front reads the first request of a fresh connection, Node's
    // parser those of one handed over before.
    const pages = await Promise.all(
      Array.from({ length: concurrent }, (_, i) =>
        through({ method: 'GET', path: `/?n=${i}`, host: 'fast.blume.example' }),
      ),
    );
    for (const page of pages) {
      assert.equal(page.status, 200);
      assert.equal(page.text, '<!doctype html><title>fast</title>');
    }
    // The access log is written within a second; its lines say which reader answered.
    let lines: Array<{ msg: string; host: string; url: string; via: string }> = [];
    for (let attempt = 0; attempt < 80 && lines.length < concurrent; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      lines = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"static request"'))
        .map((line) => JSON.parse(line) as { msg: string; host: string; url: string; via: string })
        .filter((line) => line.host === 'fast.blume.example' && line.url.startsWith('/?n='));
    }
    assert.equal(lines.length, concurrent, `every page answered by the fast path:\n${server.output().slice(-3000)}`);
    assert.ok(
      lines.some((line) => line.via === 'socket'),
      `the socket front answered: ${JSON.stringify(lines)}`,
    );
  });

  it('keeps the upstream connection working after an upload refused before its body was read', async () => {
    const hostile = gzipSync(
      await tarball([
        { name: 'evil', type: 'symlink', linkname: '/etc/passwd' },
        { name: 'padding.bin', content: randomBytes(3 * 1024 * 1024) },
      ]),
    );
    for (let round = 0; round < 2; round += 1) {
      const refused = await uploadThrough(hostile);
      assert.equal(refused.status, 422, refused.text + readFileSync(path.join(dir, 'error.log'), 'utf8'));
      assert.equal((JSON.parse(refused.text) as { code: string }).code, 'archive_symlink');
      // nginx hands the next requests to its kept-alive upstream connections, that one included.
      for (let i = 0; i < 4; i += 1) {
        assert.equal((await through({ method: 'GET', path: '/', host: 'fast.blume.example' })).status, 200);
        assert.equal((await through({ method: 'GET', path: '/up/', host: 'blume.example' })).status, 200);
      }
    }
  });
});
