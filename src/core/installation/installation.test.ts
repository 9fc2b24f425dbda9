import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runMigrations } from '../../db/migrate.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { checkInstallation, ModeMismatchError, readInstallation, recordInstallation } from './service.js';

for (const kind of testDatabases) {
  describe(`installation mode [${kind}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(kind, { migrate: false });
    });
    after(() => database.drop());

    it('reads nothing before the schema exists, and lets any mode through then', async () => {
      assert.equal(await readInstallation(database.handle.db), undefined);
      await checkInstallation(database.handle.db, { mode: 'platform' });
    });

    it('records the first mode once; the same mode passes, another mode or instance is refused naming the fix', async () => {
      await runMigrations(database.handle);
      const db = database.handle.db;
      await Promise.all([
        recordInstallation(db, { mode: 'single', instanceId: 'town' }),
        recordInstallation(db, { mode: 'single', instanceId: 'town' }),
      ]);
      assert.deepEqual(await readInstallation(db), { mode: 'single', instanceId: 'town' });
      await checkInstallation(db, { mode: 'single', instanceId: 'town' });
      await assert.rejects(checkInstallation(db, { mode: 'platform' }), (error: Error) => {
        assert.ok(error instanceof ModeMismatchError);
        assert.equal(
          error.message,
          'This installation is a single community instance ("town"), but this command runs as a platform; set BLUME_MODE=single and BLUME_INSTANCE_ID=town (the image sets BLUME_MODE), or pass --single.',
        );
        return true;
      });
      await assert.rejects(
        recordInstallation(db, { mode: 'single', instanceId: 'village' }),
        /single community instance \("town"\), but this command runs as a single community instance \("village"\)/,
      );
      assert.deepEqual(await readInstallation(db), { mode: 'single', instanceId: 'town' }, 'the first record stays');
    });
  });
}
