// Each filterable field of a type gets a partial index whose expression is exactly the one filters
// and sorts use (fields.ts), and a statistics object on it: the planner must pick the index for a
// filtered, sorted page of the type, in either direction, with entries without a value last. Each
// enum or boolean field is paired with every other indexed field (decision 0130): a list filtered on
// the first and sorted or bounded on the second reads that index, on PostgreSQL as the server runs
// the list's own statements, and lists the same entries on both databases as a plain sort would.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type SQLWrapper } from 'drizzle-orm';
import { createSite } from '../core/sites/service.js';
import { queryRows } from '../db/client.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { cappedCount } from '../db/count.js';
import {
  createType,
  deleteType,
  MAX_PAIRED_INDEXES,
  pairedFields,
  pairedIndexName,
  updateType,
} from './content-types.js';
import { listEntries, listStatements, type ListOptions } from './entries.js';
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
          sql`select indexname from pg_indexes where indexname like ${`%${type.id}%`} and indexname not like 'cmsc%' order by indexname`,
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
        // Its own index, or a pair that leads with it (an enum's).
        const leading = pairedFields(FIELDS)
          .filter(([first]) => first.name === field.name)
          .map(([first, second]) => pairedIndexName(type.id, first.name, second.name));
        assert.match(JSON.stringify(plan), new RegExp([`cms[ux]_${type.id}_${field.name}`, ...leading].join('|')));
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

    const paired = async () =>
      (
        await queryRows<{ indexname: string }>(
          db.handle.db,
          sql`select indexname from pg_indexes where indexname like ${`cmsc_${type.id}_%`} order by indexname`,
        )
      ).map((r) => r.indexname);
    const pairNames = (fields: FieldDefinition[]) =>
      pairedFields(fields)
        .map(([first, second]) => pairedIndexName(type.id, first.name, second.name))
        .sort();

    it('pairs each enum field with every other indexed field, at most 16 pairs a type', async () => {
      assert.deepEqual(
        pairedFields(FIELDS).map(([first, second]) => `${first.name}+${second.name}`),
        ['genre+title', 'genre+pages', 'genre+released'],
      );
      assert.deepEqual(await paired(), pairNames(FIELDS));
      const many: FieldDefinition[] = Array.from({ length: 6 }, (_, i) => ({ name: `flag${i}`, type: 'boolean' }));
      assert.equal(pairedFields(many).length, MAX_PAIRED_INDEXES);
    });

    describe('a list filtered on one field and sorted on another', () => {
      const GENRES = ['a', 'b'];
      const ENTRIES = 600;
      /** Entry n: genre a or b, pages (none for every seventh), a draft every eleventh. */
      const pagesOf = (n: number) => (n % 7 === 0 ? null : (n * 37) % 500);
      before(async () => {
        await db.handle.db.execute(
          sql`insert into cms_entries (id, site_id, type_id, slug, status, data, published_at)
              select 'f' || lpad(n::text, 5, '0'), 'site', ${type.id}, 'f' || n,
                     case when n % 11 = 0 then 'draft' else 'published' end,
                     jsonb_build_object('title', 'Book ' || n, 'genre', (array['a', 'b'])[1 + n % 2])
                       || case when n % 7 = 0 then '{}'::jsonb else jsonb_build_object('pages', (n * 37) % 500) end,
                     case when n % 11 = 0 then null else now() - interval '1 hour' end
              from generate_series(1, ${ENTRIES}) n`,
        );
        await db.handle.db.execute(sql`analyze cms_entries`);
      });
      after(() => db.handle.db.delete(cmsEntries).where(sql`type_id = ${type.id}`));

      /** What the list must give: live entries of the genre over the bound, by pages (none last), then id. */
      function expected(genre: string, above: number | undefined, descending: boolean): string[] {
        return Array.from({ length: ENTRIES }, (_, i) => i + 1)
          .filter((n) => n % 11 !== 0 && GENRES[n % 2] === genre && (above === undefined || (pagesOf(n) ?? -1) > above))
          .sort((x, y) => {
            const [px, py] = [pagesOf(x), pagesOf(y)];
            if (px !== py) {
              if (px === null) return 1;
              if (py === null) return -1;
              return descending ? py - px : px - py;
            }
            return descending ? y - x : x - y;
          })
          .map((n) => `f${String(n).padStart(5, '0')}`);
      }

      for (const [sort, query, above] of [
        ['-pages', { 'filter[genre]': 'a' }, undefined],
        ['pages', { 'filter[genre]': 'b' }, undefined],
        ['-pages', { 'filter[genre]': 'a', 'filter[pages][gt]': '250' }, 250],
      ] as const) {
        it(`lists sort=${sort} of ${JSON.stringify(query)} page by page as a plain sort does`, async () => {
          const want = expected(query['filter[genre]'], above, sort.startsWith('-'));
          const listed: string[] = [];
          for (let page = 1; listed.length < want.length; page++) {
            const { rows, total } = await listEntries(
              db.handle.db,
              type,
              { view: 'published', query, sort },
              { page, pageSize: 25, offset: (page - 1) * 25 },
            );
            assert.equal(total, want.length);
            assert.ok(rows.length > 0, `page ${page} is empty`);
            listed.push(...rows.map((row) => row.id));
          }
          assert.deepEqual(listed, want);
        });
      }

      if (database === 'postgres')
        it("reads the pair's index for the page and for the count, as the server plans them", async () => {
          const name = pairedIndexName(type.id, 'genre', 'pages');
          const options: ListOptions = {
            view: 'published',
            query: { 'filter[genre]': 'a', 'filter[pages][gt]': '250' },
            sort: '-pages',
          };
          const { rows, counted } = listStatements(db.handle.db, type, options, { page: 2, pageSize: 10, offset: 10 });
          const plan = async (statement: SQLWrapper) =>
            JSON.stringify(
              await db.handle.db.transaction(async (tx) => {
                // As on a table of many types' entries, where reading the whole table is never the cheap way.
                await tx.execute(sql`set local enable_seqscan = off`);
                return queryRows(tx, sql`explain ${statement}`);
              }),
            );
          assert.match(await plan(rows), new RegExp(`Index Scan Backward using ${name}`));
          assert.match(await plan(sql`select ${cappedCount(counted)}`), new RegExp(name));
          // A filter on the enum alone, sorted on the other field: the page reads the pair in order too.
          const sortedOnly = listStatements(
            db.handle.db,
            type,
            { view: 'published', query: { 'filter[genre]': 'a' }, sort: 'pages' },
            { page: 1, pageSize: 10, offset: 0 },
          );
          assert.match(await plan(sortedOnly.rows), new RegExp(`Index Scan using ${name}`));
        });
    });

    it('moves indexes with type changes and drops them with the type', async () => {
      await updateType(db.handle.db, 'site', 'books', {
        name: 'Books',
        fields: FIELDS.filter((f) => f.name !== 'pages').map((f) => (f.name === 'title' ? { ...f, unique: false } : f)),
      });
      assert.deepEqual(await indexes(), [`cmsx_${type.id}_genre`, `cmsx_${type.id}_released`, `cmsx_${type.id}_title`]);
      const changed = FIELDS.filter((f) => f.name !== 'pages').map((f) =>
        f.name === 'title' ? { ...f, unique: false } : f,
      );
      assert.deepEqual(await paired(), pairNames(changed), 'the pages pair is gone, the others stay');
      assert.deepEqual(await statistics(), [
        `cmss_${type.id}_genre`,
        `cmss_${type.id}_released`,
        `cmss_${type.id}_title`,
      ]);
      await deleteType(db.handle.db, 'site', 'books');
      assert.deepEqual(await indexes(), []);
      assert.deepEqual(await paired(), []);
      assert.deepEqual(await statistics(), []);
    });
  });
}
