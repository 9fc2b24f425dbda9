// Each filterable field of a type gets a partial index whose expression is exactly the one filters
// and sorts use (fields.ts): the planner must pick it for a filtered, sorted page of the type.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createSite } from '../core/sites/service.js';
import { queryRows } from '../db/client.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { createType, deleteType, updateType } from './content-types.js';
import { fieldExpression, type FieldDefinition } from './fields.js';
import type { ContentTypeRow } from './tables.js';

const FIELDS: FieldDefinition[] = [
  { name: 'title', type: 'text', unique: true },
  { name: 'pages', type: 'number' },
  { name: 'released', type: 'datetime' },
  { name: 'genre', type: 'enum', options: { values: ['a', 'b'] } },
  { name: 'notes', type: 'text', options: { max_length: 5000 } },
];

for (const database of testDatabases) {
  describe(`Content API field indexes [${database}]`, () => {
    let db: TestDatabase;
    let type: ContentTypeRow;
    before(async () => {
      db = await createTestDatabase(database);
      await createSite(db.handle.db, null, { id: 'site', kind: 'community', plan: 'pro' });
      type = await createType(db.handle.db, 'site', 'books', { name: 'Books', fields: FIELDS });
    });
    after(() => db.drop());

    const indexes = async () =>
      (await queryRows<{ indexname: string }>(db.handle.db, sql`select indexname from pg_indexes where indexname like ${`%${type.id}%`} order by indexname`)).map((r) => r.indexname);

    it('makes one index per filterable field, unique where the field is, none for long text', async () => {
      assert.deepEqual(await indexes(), [`cmsu_${type.id}_title`, `cmsx_${type.id}_genre`, `cmsx_${type.id}_pages`, `cmsx_${type.id}_released`]);
    });

    for (const field of FIELDS.filter((f) => f.name !== 'notes')) {
      it(`plans a filtered, sorted page on ${field.name} with its index`, async () => {
        const expression = fieldExpression(field);
        const plan = await db.handle.db.transaction(async (tx) => {
          await tx.execute(sql`set local enable_seqscan = off`);
          return queryRows<Record<string, string>>(tx, sql`explain select id from cms_entries where ${sql.raw(`type_id = '${type.id}'`)} and ${expression} is not null order by ${expression} limit 10`);
        });
        assert.match(JSON.stringify(plan), new RegExp(`cms[ux]_${type.id}_${field.name}`));
      });
    }

    it('moves indexes with type changes and drops them with the type', async () => {
      await updateType(db.handle.db, 'site', 'books', { name: 'Books', fields: FIELDS.filter((f) => f.name !== 'pages').map((f) => (f.name === 'title' ? { ...f, unique: false } : f)) });
      assert.deepEqual(await indexes(), [`cmsx_${type.id}_genre`, `cmsx_${type.id}_released`, `cmsx_${type.id}_title`]);
      await deleteType(db.handle.db, 'site', 'books');
      assert.deepEqual(await indexes(), []);
    });
  });
}
