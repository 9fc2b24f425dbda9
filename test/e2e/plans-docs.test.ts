// docs/plans.md, word for word: every command of its `sh` blocks runs with `sh` against a running
// `blume serve`, with the page's placeholders put in as a reader would (the server's port for 8080, a
// purchase key minted by the administrator for `pk_...`) and `npx blume` running the CLI from the sources,
// from "the server's folder": with the server's BLUME_DATA_DIR.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { docCommands, startReaderServer, type ReaderServer } from '../helpers/doc-commands.js';

describe('docs/plans.md, as written', () => {
  let reader: ReaderServer;
  let cookie: string;
  before(async () => {
    reader = await startReaderServer('handbook');
    const login = await fetch(`${reader.server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password: 'a long password' }),
    });
    cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  });
  after(() => reader?.close());

  const siteAnswer = async (): Promise<{ plan: string }> =>
    (await (await fetch(`${reader.server.url}/api/sites/handbook`, { headers: { cookie } })).json()) as {
      plan: string;
    };

  it('runs every command of the page', async () => {
    const commands = await docCommands('docs/plans.md');
    assert.deepEqual(
      commands.map((c) => c.section),
      ["Who changes a site's plan, and where", 'Change what a plan includes'],
    );
    const [planSet, planFeature] = commands.map((c) => c.command) as [string, string];

    assert.equal((await siteAnswer()).plan, 'free');
    const set = await reader.run(planSet, { BLUME_DATA_DIR: reader.dataDir });
    assert.equal(set.status, 0, set.stderr);
    assert.match(
      set.stdout,
      /^Site "handbook" is now on the business plan \(was free\), on every node from its next request on\.\n\(done by the running server, pid \d+\)\n$/,
    );
    assert.equal((await siteAnswer()).plan, 'business');

    const feature = await reader.run(planFeature, { BLUME_DATA_DIR: reader.dataDir });
    assert.equal(feature.status, 0, feature.stderr);
    assert.match(feature.stdout, /^ai is now on pro, business\.\n/);
  });
});
