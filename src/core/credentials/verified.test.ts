// The per-node copy of verified credentials on two nodes sharing one database and nothing else (each
// its own in-memory bus, so no message between them ever arrives): a revocation through either node
// is obeyed by that node at once and by the other within the cache seam's bound; so is one written
// with SQL behind both; a cached row never accepts a wrong secret.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeCommunity } from '../../../test/factories/forum.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { mintCredential, parseCredential, revokeCredential } from './service.js';

/** How long a copy may stay stale on a node no message reaches (docs/scaling.md). */
const BOUND_MS = 2_000;

for (const database of testDatabases) {
  describe(`verified credentials on two nodes [${database}]`, () => {
    let shared: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    const mint = async () =>
      (
        await mintCredential(a.app.deps.database.db, {
          kind: 'api_key',
          name: 'k',
          siteId: 'club',
          scopes: ['cms-read'],
        })
      ).token;
    const accepts = async (node: TestApp, token: string) =>
      (await node.app.services.credentials.verify(token, 'api_key')) !== undefined;
    const refused = (node: TestApp, token: string) => async () => ((await accepts(node, token)) ? undefined : true);

    before(async () => {
      shared = await createTestDatabase(database);
      a = await buildTestApp({ database, sharedDatabase: shared });
      b = await buildTestApp({ database, sharedDatabase: shared });
      await makeCommunity(a.app, null, 'club', 'pro');
    });
    after(async () => {
      await a.close();
      await b.close();
      await shared.drop();
    });

    it('obeys a revocation made on either node: that node at once, the other within the bound', async () => {
      const token = await mint();
      const { id } = parseCredential(token)!;
      assert.ok((await accepts(a, token)) && (await accepts(b, token)), 'both nodes keep the row');
      assert.equal(await b.app.services.credentials.revoke(id, { kind: 'api_key', siteId: 'club' }), true);
      assert.equal(await accepts(b, token), false, 'the revoking node at once');
      await eventually('node A drops the revoked key', refused(a, token), BOUND_MS);
      assert.equal(
        await b.app.services.credentials.revoke(id, { kind: 'api_key', siteId: 'club' }),
        false,
        'a second revoke finds nothing',
      );
    });

    it('never accepts a wrong secret against a cached row', async () => {
      const token = await mint();
      assert.ok(await accepts(a, token));
      const wrong = `${token.slice(0, -4)}${token.endsWith('aaaa') ? 'bbbb' : 'aaaa'}`;
      assert.equal(await accepts(a, wrong), false);
      assert.equal(await accepts(a, token.replace('blu_sk_', 'dpl_')), false, 'nor another kind');
    });

    it('obeys a revocation written behind both nodes within the bound', async () => {
      const token = await mint();
      const { id } = parseCredential(token)!;
      assert.ok((await accepts(a, token)) && (await accepts(b, token)));
      assert.equal(await revokeCredential(shared.handle.db, id, { kind: 'api_key', siteId: 'club' }), true);
      await eventually('node A drops the key revoked with SQL', refused(a, token), BOUND_MS);
      await eventually('node B drops the key revoked with SQL', refused(b, token), BOUND_MS);
    });
  });
}
