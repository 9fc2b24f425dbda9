// The per-node cache of verified credentials on two nodes sharing one database and one Redis: a
// revocation through either node is obeyed by both at once; a revocation whose message never
// arrives (written straight to the database) is obeyed once the cached row is older than TTL_MS;
// a cached row never accepts a wrong secret.
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import { makeCommunity } from '../../../test/factories/forum.js';
import { buildTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { randomAlnum } from '../../lib/ids.js';
import { mintCredential, parseCredential, revokeCredential } from './service.js';
import { TTL_MS } from './verified.js';

const redis = Boolean(process.env.TEST_REDIS_URL);

for (const database of testDatabases) {
  describe(
    `verified credentials on two nodes [${database}]`,
    { skip: redis ? false : 'cross-node invalidation needs TEST_REDIS_URL' },
    () => {
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

      before(async () => {
        shared = await createTestDatabase(database);
        const cachePrefix = `blume-test-${randomAlnum(8)}:`;
        a = await buildTestApp({ database, sharedDatabase: shared, cache: 'redis', cachePrefix });
        b = await buildTestApp({ database, sharedDatabase: shared, cache: 'redis', cachePrefix });
        await makeCommunity(a.app, null, 'club', 'pro');
      });
      after(async () => {
        await a.close();
        await b.close();
        await shared.drop();
      });

      it('obeys a revocation made on either node at once, on both', async () => {
        const token = await mint();
        const { id } = parseCredential(token)!;
        assert.ok((await accepts(a, token)) && (await accepts(b, token)), 'both nodes cache the row');
        assert.equal(await b.app.services.credentials.revoke(id, { kind: 'api_key', siteId: 'club' }), true);
        assert.equal(await accepts(b, token), false, 'the revoking node at once');
        await eventually(
          'node A drops the revoked key',
          async () => ((await accepts(a, token)) ? undefined : true),
          2_000,
        );
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

      it('obeys a revocation whose message was lost once the cached row is older than the TTL', async () => {
        const token = await mint();
        const { id } = parseCredential(token)!;
        mock.timers.enable({ apis: ['Date'], now: Date.now() });
        try {
          assert.ok(await accepts(a, token));
          // Revoked behind the cache's back: no message reaches any node.
          assert.equal(await revokeCredential(a.app.deps.database.db, id, { kind: 'api_key', siteId: 'club' }), true);
          assert.equal(await accepts(a, token), true, 'the cached row is trusted within the TTL');
          mock.timers.tick(TTL_MS + 1);
          assert.equal(await accepts(a, token), false, 'and not after it');
        } finally {
          mock.timers.reset();
        }
      });
    },
  );
}
