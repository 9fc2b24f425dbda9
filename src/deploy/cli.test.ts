import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp } from '../../test/helpers/app.js';
import { createStaticSite, edge } from '../../test/helpers/deploy.js';
import { runDeployCommand } from './cli.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

describe('blume deploy', () => {
  let t: TestApp;
  let token: string;
  let url: string;
  let dir: string;

  before(async () => {
    t = await buildTestApp({ database: 'pglite' });
    const alice = await signIn(t.app, 'alice');
    token = await createStaticSite(t.app, alice, 'cli');
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    dir = await mkdtemp(path.join(tmpdir(), 'blume-cli-'));
    await mkdir(path.join(dir, 'site/css'), { recursive: true });
    await writeFile(path.join(dir, 'site/index.html'), '<h1>from the cli</h1>');
    await writeFile(path.join(dir, 'site/css/site.css'), 'h1{color:blue}');
    await mkdir(path.join(dir, 'ruled/public'), { recursive: true });
    await writeFile(path.join(dir, 'ruled/public/index.html'), '<h1>ruled</h1>');
    await writeFile(path.join(dir, 'ruled/public/_headers'), '/*\n  X-Frame-Options: DENY\n');
    await writeFile(path.join(dir, 'ruled/public/_redirects'), '/old / 301\n');
    await mkdir(path.join(dir, 'docs/guide'), { recursive: true });
    await writeFile(path.join(dir, 'docs/index.md'), '# Handbook\n\nStart with the [guide](guide/intro.md).\n');
    await writeFile(path.join(dir, 'docs/guide/intro.md'), '# Introduction\n\n> [!TIP]\n> Read this first.\n');
    await t.app.deploy.builds.start();
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('packs a folder, uploads it with progress, promotes, and never prints the token', async () => {
    const stdout = capture();
    const stderr = capture();
    const code = await runDeployCommand(
      [path.join(dir, 'site'), '--site', 'cli', '--url', url, '--promote'],
      { BLUME_DEPLOY_TOKEN: token },
      { stdout: stdout.stream, stderr: stderr.stream, fetch },
    );
    assert.equal(code, 0, stderr.text());
    // Site URLs carry the port the client reached the server on (docs/decisions/0014-forwarded-urls.md).
    const port = new URL(url).port;
    assert.match(
      stdout.text(),
      new RegExp(
        `^release [a-z0-9]{12}: 2 files, \\d+ bytes, 2 new\\npreview http://r-[a-z0-9]{12}--cli\\.blume\\.test:${port}\\nlive [a-z0-9]{12}\\n$`,
      ),
    );
    assert.match(stderr.text(), /packed 2 files/);
    assert.match(stderr.text(), /uploading \[#+\] 100%/);
    assert.ok(!stdout.text().includes(token) && !stderr.text().includes(token));
    assert.equal((await edge(t.app, 'cli.blume.test', '/')).body, '<h1>from the cli</h1>');
  });

  it('counts the files as the release does: rules files are not content', async () => {
    const stdout = capture();
    const stderr = capture();
    // A lone folder is unwrapped by the server, so its _headers is the site's.
    const code = await runDeployCommand(
      [path.join(dir, 'ruled'), '--site', 'cli', '--url', url],
      { BLUME_DEPLOY_TOKEN: token },
      { stdout: stdout.stream, stderr: stderr.stream, fetch },
    );
    assert.equal(code, 0, stderr.text());
    assert.match(stderr.text(), /^packed 1 files from .*ruled, and the rules in _headers, _redirects$/m);
    assert.match(stdout.text(), /^release [a-z0-9]{12}: 1 files,/);
  });

  it('names the address and the cause when the server cannot be reached, before packing anything', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const stderr = capture();
    const code = await runDeployCommand(
      [path.join(dir, 'site'), '--site', 'cli', '--url', `http://127.0.0.1:${port}`],
      { BLUME_DEPLOY_TOKEN: token },
      { stdout: capture().stream, stderr: stderr.stream, fetch },
    );
    assert.equal(code, 1);
    assert.equal(
      stderr.text(),
      `deploy failed: cannot reach Blume at http://127.0.0.1:${port} (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}).\nIs the server running there? Give its address with --url <portal url> (or set BLUME_PUBLIC_URL).\n`,
    );
    // Without --url it goes to BLUME_PUBLIC_URL, and says so by naming it.
    const viaEnv = capture();
    assert.equal(
      await runDeployCommand(
        [path.join(dir, 'site'), '--site', 'cli'],
        { BLUME_DEPLOY_TOKEN: token, BLUME_PUBLIC_URL: `http://127.0.0.1:${port}` },
        { stdout: capture().stream, stderr: viaEnv.stream, fetch },
      ),
      1,
    );
    assert.match(viaEnv.text(), new RegExp(`cannot reach Blume at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED`));
  });

  it('with --build, has the server build a Markdown folder into a docs site, and prints the log of a failed build', async () => {
    const stdout = capture();
    const stderr = capture();
    const code = await runDeployCommand(
      [path.join(dir, 'docs'), '--site', 'cli', '--url', url, '--build', '--promote'],
      { BLUME_DEPLOY_TOKEN: token },
      { stdout: stdout.stream, stderr: stderr.stream, fetch },
    );
    assert.equal(code, 0, stderr.text());
    assert.match(
      stdout.text(),
      /^release [a-z0-9]{12}: \d+ files, \d+ bytes, \d+ new\npreview http:\/\/r-[a-z0-9]{12}--cli\.blume\.test:\d+\nlive [a-z0-9]{12}\n$/,
    );
    const page = await edge(t.app, 'cli.blume.test', '/guide/intro/');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1 id="introduction">Introduction/);
    assert.match(page.body, /Read this first/);

    await writeFile(path.join(dir, 'docs/broken.md'), '# Broken\n\nSee [nowhere](missing.md).\n');
    const failed = capture();
    assert.equal(
      await runDeployCommand(
        [path.join(dir, 'docs'), '--site', 'cli', '--url', url, '--build'],
        { BLUME_DEPLOY_TOKEN: token },
        { stdout: capture().stream, stderr: failed.stream, fetch },
      ),
      1,
    );
    assert.match(failed.text(), /^stderr: error: .*broken\.md.*missing\.md/m);
    assert.match(failed.text(), /deploy refused \(422 build_failed\)/);
    await rm(path.join(dir, 'docs/broken.md'));
  });

  it('explains a missing token, a refused deploy and a symbolic link', async () => {
    const stderr = capture();
    const io = { stdout: capture().stream, stderr: stderr.stream, fetch };
    assert.equal(await runDeployCommand([dir, '--site', 'cli', '--url', url], {}, io), 2);
    assert.match(stderr.text(), /BLUME_DEPLOY_TOKEN is not set/);
    assert.equal(
      await runDeployCommand(
        [path.join(dir, 'site'), '--site', 'other', '--url', url],
        { BLUME_DEPLOY_TOKEN: token },
        io,
      ),
      1,
    );
    assert.match(stderr.text(), /deploy refused \(403 token_site_mismatch\)/);
    await symlink('/etc/passwd', path.join(dir, 'site/passwd'));
    assert.equal(
      await runDeployCommand(
        [path.join(dir, 'site'), '--site', 'cli', '--url', url],
        { BLUME_DEPLOY_TOKEN: token },
        io,
      ),
      1,
    );
    assert.match(stderr.text(), /passwd is a symbolic link/);
  });
});
