// List totals on both databases: exact up to the limit, the planner's estimate of the same rows past
// it, remembered per statement.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { listTotal } from './count.js';

for (const kind of testDatabases) {
  describe(`list totals [${kind}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(kind, { migrate: false });
      await database.handle.db.execute(sql`create table counted (n integer primary key)`);
      await database.handle.db.execute(sql`insert into counted select g from generate_series(1, 500) g`);
      await database.handle.db.execute(sql`analyze counted`);
    });
    after(() => database.drop());

    it('counts exactly up to the limit, the limit itself included', async () => {
      assert.deepEqual(await listTotal(database.handle.db, sql`select 1 from counted`, 500), {
        total: 500,
        estimated: false,
      });
      assert.deepEqual(await listTotal(database.handle.db, sql`select 1 from counted where n <= 120`, 200), {
        total: 120,
        estimated: false,
      });
      assert.deepEqual(await listTotal(database.handle.db, sql`select 1 from counted where n > 1000`, 10), {
        total: 0,
        estimated: false,
      });
    });

    it('estimates past the limit from the plan of the same rows, never below what it counted', async () => {
      const estimate = await listTotal(database.handle.db, sql`select 1 from counted`, 100);
      assert.equal(estimate.estimated, true);
      assert.equal(estimate.total, 500, 'an analyzed table without a filter is estimated exactly');
      const filtered = await listTotal(database.handle.db, sql`select 1 from counted where n > ${300}`, 50);
      assert.equal(filtered.estimated, true);
      assert.ok(filtered.total >= 51 && filtered.total <= 500, `estimate ${filtered.total}`);
    });

    it('remembers an estimate: the table grown and analyzed, the same rows keep their estimate a while', async () => {
      const rows = sql`select 1 from counted where n > ${400}`;
      const first = await listTotal(database.handle.db, rows, 10);
      await database.handle.db.execute(sql`insert into counted select g from generate_series(501, 2000) g`);
      await database.handle.db.execute(sql`analyze counted`);
      assert.deepEqual(await listTotal(database.handle.db, rows, 10), first);
      const fresh = await listTotal(database.handle.db, sql`select 1 from counted where n > ${401}`, 10);
      assert.ok(
        fresh.total > first.total,
        `a statement not seen before is estimated anew: ${fresh.total} > ${first.total}`,
      );
    });
  });
}
