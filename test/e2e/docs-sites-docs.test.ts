// docs/docs-sites.md, word for word: every command of its `sh` blocks runs with `sh` against a
// running `blume serve`, with the page's placeholders put in as a reader would (the server's port for
// 8080, a minted deploy token for `dpl_...`) and `npx blume` running the CLI from the sources.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BLUME_CLI_FROM_SOURCES, runBlume, runCommand, startBlume, type RunningServer } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The commands of the page's `sh` blocks (continued lines joined), with the section each is in. */
async function docCommands(): Promise<{ section: string; command: string }[]> {
  const markdown = await readFile(path.join(ROOT, 'docs/docs-sites.md'), 'utf8');
  const commands: { section: string; command: string }[] = [];
  for (const section of markdown.split(/^## /m).slice(1)) {
    const title = section.slice(0, section.indexOf('\n'));
    for (const block of section.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
      for (const line of block[1]!.replace(/\\\n\s*/g, '').split('\n')) if (line.trim() !== '') commands.push({ section: title, command: line.trim() });
    }
  }
  return commands;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('docs/docs-sites.md, as written', () => {
  let dataDir: string;
  let server: RunningServer;
  let port: number;
  let token: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'blume-docs-sites-'));
    port = await freePort();
    const env = { BLUME_DATA_DIR: dataDir, BLUME_PUBLIC_URL: `http://localhost:${port}`, BLUME_GIT_BASE_URL: 'https://git.example.com' };
    const admin = await runBlume(['create-admin', '-u', 'admin', '-e', 'admin@example.com', '-p', 'a long password'], env);
    assert.equal(admin.status, 0, admin.stderr);
    server = await startBlume([], { ...env, BLUME_BIND: `127.0.0.1:${port}` });
    const login = await fetch(`${server.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'admin', password: 'a long password' }) });
    assert.equal(login.status, 200);
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const post = (url: string, body: unknown) => fetch(server.url + url, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await post('/api/sites', { id: 'handbook', kind: 'static' })).status, 201);
    const minted = await post('/api/sites/handbook/deploy-tokens', { name: 'docs' });
    token = ((await minted.json()) as { token: string }).token;
  });
  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs every command of the page', async () => {
    const commands = await docCommands();
    assert.deepEqual(
      commands.map((c) => c.section),
      ['Build and publish a folder', 'Build and publish a folder', 'Build on every push'],
    );
    const results: string[] = [];
    for (const { command } of commands) {
      const line = command.replaceAll('localhost:8080', `localhost:${port}`).replaceAll('dpl_...', token).replace('npx blume', BLUME_CLI_FROM_SOURCES);
      const result = await runCommand(['sh', '-c', line], {}, ROOT);
      assert.equal(result.status, 0, `${command}\n${result.stdout}\n${result.stderr}`);
      results.push(result.stdout);
    }
    const [deployed, page, connected] = results as [string, string, string];
    assert.match(deployed, /^release [a-z0-9]{12}: \d+ files, \d+ bytes, \d+ new\npreview http:\/\/r-[a-z0-9]{12}--handbook\.localhost:\d+\nlive [a-z0-9]{12}\n$/);
    assert.match(page, /<h1 id="install">Install/);
    assert.match(page, /class="tabs"/);
    assert.match(page, /<p class="callout-title">Before you upgrade<\/p>/);
    assert.match(page, /href="https:\/\/git\.example\.com\/acme\/handbook\/edit\/main\/docs\/guide\/install\.md"/);
    const connection = JSON.parse(connected) as { repository: string; kind: string; webhook_url: string; webhook_secret: string };
    assert.equal(connection.repository, 'acme/handbook');
    assert.equal(connection.kind, 'markdown');
    assert.match(connection.webhook_url, /\/api\/deploy\/handbook\/github\/webhook$/);
    assert.ok(connection.webhook_secret.length >= 32);
  });
});
