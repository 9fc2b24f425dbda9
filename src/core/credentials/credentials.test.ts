import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { createSite } from '../sites/service.js';
import { listCredentials, mintCredential, parseCredential, revokeCredential, verifyCredential } from './service.js';
import { credentials } from './tables.js';

for (const kind of testDatabases) {
  describe(`credentials [${kind}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(kind);
      await createSite(database.handle.db, null, { id: 'one', kind: 'static' });
    });
    after(() => database.drop());

    it('stores only a hash and verifies the token it minted', async () => {
      const { row, token } = await mintCredential(database.handle.db, {
        kind: 'deploy_token',
        siteId: 'one',
        name: 'ci',
      });
      const secret = token.split('.')[1]!;
      const [stored] = await database.handle.db.select().from(credentials).where(eq(credentials.id, row.id));
      assert.ok(!JSON.stringify(stored).includes(secret));
      assert.equal(stored!.lastUsedAt, null);
      const verified = await verifyCredential(database.handle.db, token, 'deploy_token');
      assert.equal(verified?.id, row.id);
      assert.ok(verified?.lastUsedAt, 'use is recorded');
    });

    it('refuses a wrong secret, another kind, garbage and a revoked token', async () => {
      const { row, token } = await mintCredential(database.handle.db, {
        kind: 'api_key',
        siteId: 'one',
        name: 'k',
        scopes: ['cms-read'],
      });
      const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      assert.equal(await verifyCredential(database.handle.db, wrong, 'api_key'), undefined);
      assert.equal(await verifyCredential(database.handle.db, token, 'deploy_token'), undefined);
      assert.equal(await verifyCredential(database.handle.db, 'dpl_nonsense', 'deploy_token'), undefined);
      assert.equal(
        await verifyCredential(database.handle.db, token.replace('blu_sk_', 'dpl_'), 'deploy_token'),
        undefined,
      );
      assert.equal(
        await revokeCredential(database.handle.db, row.id, { kind: 'api_key', siteId: 'other' }),
        false,
        'scoped to its site',
      );
      assert.equal(await revokeCredential(database.handle.db, row.id, { kind: 'api_key', siteId: 'one' }), true);
      assert.equal(await verifyCredential(database.handle.db, token, 'api_key'), undefined);
      assert.equal((await listCredentials(database.handle.db, { kind: 'api_key', siteId: 'one' })).length, 0);
    });

    it('parses every prefix', () => {
      const secret = 'A'.repeat(43);
      assert.equal(parseCredential(`dpl_0123456789abcdef.${secret}`)?.kind, 'deploy_token');
      assert.equal(parseCredential(`blu_sk_0123456789abcdef.${secret}`)?.kind, 'api_key');
      assert.equal(parseCredential(`blu_ft_0123456789abcdef.${secret}`)?.kind, 'forum_token');
      assert.equal(parseCredential(`pk_0123456789abcdef.${secret}`)?.kind, 'purchase_key');
      assert.equal(parseCredential(`xx_0123456789abcdef.${secret}`), undefined);
      assert.equal(parseCredential(`dpl_0123456789abcdef.${secret}x`), undefined);
    });
  });
}
