// Deleting a forum deletes its topics and their posts, and PostgreSQL cascades each deleted row to
// the tables that refer to it with one statement per row: a referring column without an index of
// its own makes each of those statements scan its whole table
// (docs/decisions/0107-cascades-through-indexes.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/client.js';
import { textArray } from '../db/prepared.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';

/** The tables whose rows a forum's deletion removes by the thousand. */
const BULK_DELETED = ['forum_topics', 'forum_posts'];

for (const kind of testDatabases) {
  describe(`forum cascades [${kind}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(kind);
    });
    after(() => database.drop());

    it('reach every row that refers to a deleted topic or post through an index that leads with its column', async () => {
      const keys = await queryRows<{ referrer: string; column_name: string; indexed: boolean }>(
        database.handle.db,
        sql`select c.conrelid::regclass::text as referrer, a.attname as column_name,
              exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1] and \
i.indpred is null) as indexed
            from pg_constraint c
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
            where c.contype = 'f' and c.confrelid::regclass::text = any(${textArray(BULK_DELETED)})`,
      );
      assert.ok(
        keys.some((key) => `${key.referrer}.${key.column_name}` === 'forum_topic_reads.topic_id'),
        'the catalog query finds the keys',
      );
      assert.deepEqual(
        keys.filter((key) => !key.indexed).map((key) => `${key.referrer}.${key.column_name}`),
        [],
      );
    });
  });
}
