// What `blume deploy --build` tells its user: the warnings of a build that succeeded, every broken
// link of one that failed (each once, with file and line), a clear refusal of a folder without a
// Markdown page, and log lines named once (`sandbox: ...`, never `sandbox: sandbox: ...`).
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startReaderServer, type ReaderServer } from '../helpers/doc-commands.js';

describe('blume deploy --build feedback', () => {
  let reader: ReaderServer;
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-build-feedback-'));
    reader = await startReaderServer('handbook');
  });
  after(async () => {
    await reader?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  async function deploy(name: string, files: Record<string, string>) {
    const dir = path.join(scratch, name);
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    return reader.run(
      `BLUME_DEPLOY_TOKEN=dpl_... npx blume deploy ${dir} --site handbook --url http://localhost:8080 --build`,
    );
  }

  it('prints the warnings of a build that succeeded', async () => {
    const result = await deploy('warned', { 'index.md': '# Home\n\nHello.\n\n<script>alert(1)</script>\n' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /^release [a-z0-9]{12}: /);
    assert.match(result.stderr, /^warning: index\.md: <script> is not in the allowed HTML subset and was removed$/m);
    assert.match(
      result.stderr,
      /^warning: no site URL \(blume\.json "url"\); sitemap\.xml lists paths without an origin$/m,
    );
  });

  it('refuses a folder without a Markdown page, saying so', async () => {
    const result = await deploy('plain', { 'hello.txt': 'hello\n', 'images/logo.svg': '<svg/>\n' });
    assert.equal(result.status, 1);
    assert.match(
      result.stderr,
      /deploy refused \(422 build_failed\): the folder has no Markdown page \(\.md or \.markdown\)/,
    );
  });

  it('reports every broken link of a failed build, each once, and names each log stream once', async () => {
    const result = await deploy('broken', {
      'index.md': '# Home\n\n[one](missing.md) and [two](gone.md)\n',
      'guide.md': '# Guide\n\n[three](nowhere/)\n',
    });
    assert.equal(result.status, 1);
    for (const link of [
      'guide.md:3: broken link "nowhere/"',
      'index.md:3: broken link "missing.md"',
      'index.md:3: broken link "gone.md"',
    ])
      assert.equal(result.stderr.split(link).length - 1, 1, `${link} once in:\n${result.stderr}`);
    assert.match(result.stderr, /deploy refused \(422 build_failed\): 3 problems/);
    assert.doesNotMatch(result.stderr, /sandbox: sandbox:|blume: blume:/);
    assert.match(result.stderr, /^sandbox: bubblewrap|^sandbox: Node permission model/m);
  });
});
