// docs/docs-sites.md, word for word: every command of its `sh` blocks runs with `sh` against a
// running `blume serve`, with the page's placeholders put in as a reader would (the server's port for
// 8080, a minted deploy token for `dpl_...`) and `npx blume` running the CLI from the sources.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { docCommands, startReaderServer, type ReaderServer } from '../helpers/doc-commands.js';

describe('docs/docs-sites.md, as written', () => {
  let reader: ReaderServer;
  before(async () => {
    reader = await startReaderServer('handbook', { BLUME_GIT_BASE_URL: 'https://git.example.com' });
  });
  after(() => reader?.close());

  it('runs every command of the page', async () => {
    const commands = await docCommands('docs/docs-sites.md');
    assert.deepEqual(
      commands.map((c) => c.section),
      ['Build and publish a folder', 'Build and publish a folder', 'Build on every push'],
    );
    const results: string[] = [];
    for (const { command } of commands) {
      const result = await reader.run(command);
      assert.equal(result.status, 0, `${command}\n${result.stdout}\n${result.stderr}`);
      results.push(result.stdout);
    }
    const [deployed, page, connected] = results as [string, string, string];
    assert.match(
      deployed,
      /^release [a-z0-9]{12}: \d+ files, \d+ bytes, \d+ new\npreview http:\/\/r-[a-z0-9]{12}--handbook\.localhost:\d+\nlive [a-z0-9]{12}\n$/,
    );
    assert.match(page, /<h1 id="install">Install/);
    assert.match(page, /class="tabs"/);
    assert.match(page, /<p class="callout-title">Before you upgrade<\/p>/);
    assert.match(page, /href="https:\/\/git\.example\.com\/acme\/handbook\/edit\/main\/docs\/guide\/install\.md"/);
    const connection = JSON.parse(connected) as {
      repository: string;
      kind: string;
      webhook_url: string;
      webhook_secret: string;
    };
    assert.equal(connection.repository, 'acme/handbook');
    assert.equal(connection.kind, 'markdown');
    assert.match(connection.webhook_url, /\/api\/deploy\/handbook\/github\/webhook$/);
    assert.ok(connection.webhook_secret.length >= 32);
  });
});
