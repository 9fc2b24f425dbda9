// Prepared statements on both databases: a variant is built once and cached under its name, up to a
// bound per statement; past it each call builds the variant anew and sends it unnamed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { preparedStatement } from './prepared.js';

const bound = 64;

for (const kind of testDatabases) {
  describe(`prepared statements [${kind}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(kind, { migrate: false });
    });
    after(() => database.drop());

    it('keeps a variant once built, and past the bound answers with a statement built for the call', async () => {
      const { db } = database.handle;
      // Each variant adds its own constant, so a statement cached under the wrong name would answer wrong.
      const statement = preparedStatement(
        'prepared_test',
        (inner, plus: number) =>
          inner
            .select({ n: sql<number>`(${sql.placeholder('n')}::int + ${sql.raw(String(plus))})::int` })
            .from(sql`(select 1) one`),
        String,
      );
      for (let plus = 0; plus < bound + 6; plus++) {
        const [row] = await statement(db, plus).execute({ n: 100 });
        assert.equal(row?.n, 100 + plus, `variant ${plus}`);
      }
      assert.equal(statement(db, 3), statement(db, 3), 'a cached variant is reused');
      assert.notEqual(
        statement(db, bound + 2),
        statement(db, bound + 2),
        'a variant past the bound is built for each call',
      );
      for (let plus = bound + 6; plus >= 0; plus -= 7)
        assert.equal((await statement(db, plus).execute({ n: 1 }))[0]?.n, 1 + plus);
    });

    it('names variants longer than PostgreSQL keeps apart', async () => {
      const { db } = database.handle;
      // Both names would be cut to the same 63 bytes; PostgreSQL would refuse the second as a duplicate.
      const long = preparedStatement(
        'prepared_long',
        (inner, key: string) =>
          inner.select({ key: sql<string>`${sql.raw(`'${key.slice(-1)}'`)}::text` }).from(sql`(select 1) one`),
        (key) => key,
      );
      for (const key of [`${'v'.repeat(80)}a`, `${'v'.repeat(80)}b`])
        assert.equal((await long(db, key).execute())[0]?.key, key.slice(-1));
    });
  });
}
