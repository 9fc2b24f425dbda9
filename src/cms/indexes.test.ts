// Each filterable field of a type gets a partial index whose expression is exactly the one filters
// and sorts use (fields.ts), and a statistics object on it: the planner must pick the index for a
// filtered, sorted page of the type, in either direction, with entries without a value last.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createSite } from '../core/sites/service.js';
import { queryRows } from '../db/client.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { createType, deleteType, updateType } from './content-types.js';
import { listEntries } from './entries.js';
import { fieldExpression, type FieldDefinition } from './fields.js';
import { cmsEntries, type ContentTypeRow } from './tables.js';

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
      (
        await queryRows<{ indexname: string }>(
          db.handle.db,
          sql`select indexname from pg_indexes where indexname like ${`%${type.id}%`} order by indexname`,
        )
      ).map((r) => r.indexname);
    const statistics = async () =>
      (
        await queryRows<{ stxname: string }>(
          db.handle.db,
          sql`select stxname from pg_statistic_ext where stxname like ${`%${type.id}%`} order by stxname`,
        )
      ).map((r) => r.stxname);

    it('makes one index per filterable field, unique where the field is, none for long text', async () => {
      assert.deepEqual(await indexes(), [
        `cmsu_${type.id}_title`,
        `cmsx_${type.id}_genre`,
        `cmsx_${type.id}_pages`,
        `cmsx_${type.id}_released`,
      ]);
      assert.deepEqual(await statistics(), [
        `cmss_${type.id}_genre`,
        `cmss_${type.id}_pages`,
        `cmss_${type.id}_released`,
        `cmss_${type.id}_title`,
      ]);
    });

    for (const field of FIELDS.filter((f) => f.name !== 'notes')) {
      it(`plans a filtered, sorted page on ${field.name} with its index`, async () => {
        const expression = fieldExpression(field);
        const plan = await db.handle.db.transaction(async (tx) => {
          await tx.execute(sql`set local enable_seqscan = off`);
          return queryRows<Record<string, string>>(
            tx,
            sql`explain select id from cms_entries where ${sql.raw(`type_id = '${type.id}'`)} and ${expression} is not null order by ${expression} limit 10`,
          );
        });
        assert.match(JSON.stringify(plan), new RegExp(`cms[ux]_${type.id}_${field.name}`));
      });
    }

    it('lists a descending sort in index order, entries without a value last on every page', async () => {
      const pages = [300, null, 120, 300, null, 90, 410];
      await db.handle.db.insert(cmsEntries).values(
        pages.map((value, n) => ({
          id: `e${n}`,
          siteId: 'site',
          typeId: type.id,
          slug: `b${n}`,
          status: 'published' as const,
          data: value === null ? { title: `t${n}` } : { title: `t${n}`, pages: value },
          publishedAt: new Date(Date.now() - 60_000),
        })),
      );
      // What the planner reads for the part with values: the field's index, backwards.
      const expression = fieldExpression(FIELDS[1]!);
      const plan = await db.handle.db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        await tx.execute(sql`set local enable_bitmapscan = off`);
        return queryRows<Record<string, string>>(
          tx,
          sql`explain select id from cms_entries where ${sql.raw(`type_id = '${type.id}'`)} and ${expression} is not null order by ${expression} desc, id desc limit 3`,
        );
      });
      assert.match(JSON.stringify(plan), new RegExp(`Index Scan Backward using cmsx_${type.id}_pages`));
      const listed: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const { rows, total } = await listEntries(
          db.handle.db,
          type,
          { view: 'published', query: {}, sort: '-pages' },
          { page, pageSize: 3, offset: (page - 1) * 3 },
        );
        assert.equal(total, pages.length);
        listed.push(...rows.map((row) => row.id));
      }
      assert.deepEqual(listed, ['e6', 'e3', 'e0', 'e2', 'e5', 'e4', 'e1']);
      const filtered = await listEntries(
        db.handle.db,
        type,
        { view: 'published', query: { 'filter[pages][lt]': '301' }, sort: '-pages,title' },
        { page: 1, pageSize: 10, offset: 0 },
      );
      assert.deepEqual(
        filtered.rows.map((row) => row.id),
        ['e0', 'e3', 'e2', 'e5'],
      );
      await db.handle.db.delete(cmsEntries).where(sql`type_id = ${type.id}`);
    });

    it('moves indexes with type changes and drops them with the type', async () => {
      await updateType(db.handle.db, 'site', 'books', {
        name: 'Books',
        fields: FIELDS.filter((f) => f.name !== 'pages').map((f) => (f.name === 'title' ? { ...f, unique: false } : f)),
      });
      assert.deepEqual(await indexes(), [`cmsx_${type.id}_genre`, `cmsx_${type.id}_released`, `cmsx_${type.id}_title`]);
      assert.deepEqual(await statistics(), [
        `cmss_${type.id}_genre`,
        `cmss_${type.id}_released`,
        `cmss_${type.id}_title`,
      ]);
      await deleteType(db.handle.db, 'site', 'books');
      assert.deepEqual(await indexes(), []);
      assert.deepEqual(await statistics(), []);
    });
  });
}
