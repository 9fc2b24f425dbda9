// The generated dependency test of the cache seam (docs/decisions/0111-cache-seam.md): for every
// column of every table a cache scope reads (src/adapters/cache/dependencies.ts), write the column
// with SQL behind both nodes and prove that node B's answer, kept under the scope, changes once B has
// polled twice (each poll reads every move committed before it starts; no bus between the nodes).
// Then drop a trigger and show the check fails, and TRUNCATE each table and show B's answers change
// within the bound by B's own timer alone (migrations/0047_cache_epochs_truncate.sql).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { CACHE_DEPENDENCIES, type CacheDependency } from '../src/adapters/cache/dependencies.js';
import type { Cached } from '../src/adapters/cache/epochs.js';
import { queryRows } from '../src/db/client.js';
import { cmsApi, mintApiKey } from './factories/cms.js';
import { addMember, makeCommunity } from './factories/forum.js';
import { helpdeskApi } from './factories/helpdesk.js';
import { buildTestApp, portal, signIn, type TestApp } from './helpers/app.js';
import { createTestDatabase, testDatabases, type TestDatabase } from './helpers/databases.js';
import { createStaticSite, deployApi } from './helpers/deploy.js';
import { eventually } from './helpers/eventually.js';

const BOUND_MS = 2_000;
const SITE = 'deps';

interface Column {
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
  /** The table and column a foreign key on it references, if any. */
  ref_table: string | null;
  ref_column: string | null;
}

/** SQL that gives the column of a row of `table` a value it did not have, by its type. */
function changed(
  table: string,
  { column_name: column, data_type: type, is_nullable, ref_table, ref_column }: Column,
): string {
  const c = `"${column}"`;
  if (ref_table) {
    // Another row it may reference, or none where it may reference none.
    const other = `(select r."${ref_column}" from "${ref_table}" r where r."${ref_column}" is distinct from "${table}".${c} order by 1 limit 1)`;
    return is_nullable === 'YES' ? `case when ${c} is null then ${other} end` : other;
  }
  if (type === 'text') return `coalesce(${c}, '') || 'x'`;
  // Past any other row's value: some numbers are unique (a ticket's number in its site).
  if (type === 'integer' || type === 'bigint' || type === 'numeric' || type === 'real')
    return `coalesce(${c}, 0) + 1000003`;
  if (type === 'boolean') return `not coalesce(${c}, false)`;
  if (type.startsWith('timestamp')) return `coalesce(${c}, now()) + interval '1 second'`;
  if (type === 'jsonb') return `coalesce(${c}, '{}'::jsonb) || '{"changed": "yes"}'::jsonb`;
  if (type === 'ARRAY') return `array_append(coalesce(${c}, '{}'), 'x')`;
  throw new Error(`no change known for a column of type ${type}`);
}

for (const database of testDatabases) {
  describe(`every declared cache dependency heals on a second node [${database}]`, () => {
    let shared: TestDatabase;
    let a: TestApp;
    let b: TestApp;
    let answers: Cached<string>;
    const run = (statement: string) => shared.handle.db.execute(sql.raw(statement));
    /** What node B answers for the column of the row, kept under the row's scope. */
    const answerOnB = (dependency: CacheDependency, scope: string, key: string, column: string) =>
      answers.cached(scope, `${dependency.table}.${column}.${key}`, async () => {
        const [row] = await queryRows<{ value: string | null }>(
          shared.handle.db,
          sql.raw(
            `select "${column}"::text as value from "${dependency.table}" where "${dependency.key}" = '${key.replaceAll("'", "''")}'`,
          ),
        );
        return String(row?.value);
      });
    /** One row of the table, of the test's site where it has one: its key and its scope. */
    const rowOf = async (dependency: CacheDependency) => {
      const [row] = await queryRows<{ key: string; scope: string }>(
        shared.handle.db,
        sql.raw(
          `select "${dependency.key}"::text as key, ${dependency.scope} as scope from "${dependency.table}" order by 1 limit 1`,
        ),
      );
      assert.ok(row, `a row of ${dependency.table} to write`);
      return row;
    };

    before(async () => {
      shared = await createTestDatabase(database);
      a = await buildTestApp({ database, sharedDatabase: shared });
      b = await buildTestApp({ database, sharedDatabase: shared });
      answers = b.app.services.epochs.cache({ name: 'dependency test', kind: 'directory', maxBytes: 1024 * 1024 });
      // A row in every table read: a community with settings, a key, a type with an entry, a ticket.
      const owner = await signIn(a.app, 'owner');
      await makeCommunity(a.app, owner, SITE, 'pro');
      const ann = await addMember(a.app, SITE, 'ann');
      await portal(a.app, owner, {
        method: 'PUT',
        url: `/api/instances/${SITE}/env`,
        payload: { API_CORS_ORIGINS: '' },
      });
      const staticToken = await createStaticSite(a.app, owner, 'deps-static');
      const domain = await deployApi(a.app, staticToken, 'POST', '/api/deploy/deps-static/domains', {
        domain: 'deps.example.com',
      });
      assert.equal(domain.statusCode, 201, domain.body);
      const admin = await mintApiKey(a.app, owner, SITE, ['admin']);
      const key = await mintApiKey(a.app, owner, SITE, ['cms-write', 'helpdesk-write']);
      const cms = async (path: string, payload: object, as: string) => {
        const response = await cmsApi(a.app, SITE, as, { method: 'POST', path, payload });
        assert.equal(response.statusCode, 201, response.body);
      };
      await cms('/content-types', { slug: 'notes', name: 'Notes', fields: [{ name: 'title', type: 'text' }] }, admin);
      await cms('/entries/notes', { slug: 'one', status: 'published', data: { title: 'One' } }, key);
      const ticket = await helpdeskApi(
        a.app,
        SITE,
        { key },
        {
          method: 'POST',
          path: '/tickets',
          payload: { subject: 'Help', body: 'Please', requester: { email: 'carol@example.test', name: 'Carol' } },
        },
      );
      assert.equal(ticket.statusCode, 201, ticket.body);
      const desk = async (method: 'POST' | 'PATCH', path: string, payload: object) => {
        const response = await helpdeskApi(a.app, SITE, { key }, { method, path, payload });
        assert.ok(response.statusCode < 300, response.body);
        return response.json() as { id: string };
      };
      const billing = await desk('POST', '/categories', { name: 'Billing' });
      await desk('PATCH', `/agents/${ann.member.id}`, { capacity: 10, category_ids: [billing.id] });
      const other = await helpdeskApi(
        a.app,
        SITE,
        { key },
        {
          method: 'POST',
          path: '/tickets',
          payload: { subject: 'More', body: 'Again', requester: { email: 'dan@example.test' } },
        },
      );
      assert.equal(other.statusCode, 201, other.body);
    });
    after(async () => {
      await a.close();
      await b.close();
      await shared.drop();
    });

    for (const dependency of CACHE_DEPENDENCIES) {
      it(`${dependency.table} under ${dependency.scope}`, async () => {
        const columns = await queryRows<Column>(
          shared.handle.db,
          sql`select c.column_name, c.data_type, c.is_nullable, f.ref_table, f.ref_column
              from information_schema.columns c
              left join (
                select a.attname as column_name, rt.relname as ref_table, ra.attname as ref_column
                from pg_constraint k
                join pg_attribute a on a.attrelid = k.conrelid and a.attnum = k.conkey[1]
                join pg_class rt on rt.oid = k.confrelid
                join pg_attribute ra on ra.attrelid = k.confrelid and ra.attnum = k.confkey[1]
                where k.contype = 'f' and k.conrelid = ${dependency.table}::regclass and cardinality(k.conkey) = 1
              ) f on f.column_name = c.column_name
              where c.table_schema = 'public' and c.table_name = ${dependency.table} order by c.ordinal_position`,
        );
        const read = columns.filter(({ column_name }) => !(column_name in dependency.unread));
        assert.ok(read.length > 0);
        for (const described of read) {
          const column = described.column_name;
          const { key, scope } = await rowOf(dependency);
          const before = await answerOnB(dependency, scope, key, column);
          assert.equal(await answerOnB(dependency, scope, key, column), before, 'node B keeps the answer');
          await run(
            `update "${dependency.table}" set "${column}" = ${changed(dependency.table, described)} where "${dependency.key}" = '${key}'`,
          );
          await b.app.services.epochs.poll();
          await b.app.services.epochs.poll();
          assert.notEqual(
            await answerOnB(dependency, scope, key, column),
            before,
            `node B answers ${dependency.table}.${column} anew`,
          );
        }
      });
    }

    it('fails when a trigger is dropped: the answer stays what node B kept', async () => {
      const sites = CACHE_DEPENDENCIES.find((dependency) => dependency.table === 'sites')!;
      const { key, scope } = await rowOf(sites);
      const before = await answerOnB(sites, scope, key, 'plan');
      await run(`drop trigger "sites_cache_updated" on "sites"`);
      await run(`update "sites" set "plan" = "plan" || 'y' where "id" = '${key}'`);
      // Two polls after the write committed: each reads every move committed before it started.
      await b.app.services.epochs.poll();
      await b.app.services.epochs.poll();
      assert.equal(await answerOnB(sites, scope, key, 'plan'), before, 'no epoch moved: node B keeps the stale answer');
      const [fresh] = await queryRows<{ plan: string }>(
        shared.handle.db,
        sql`select plan from sites where id = ${key}`,
      );
      assert.notEqual(fresh!.plan, before, 'though the database changed');
    });

    it('heals after TRUNCATE: emptying a table a scope reads moves the scopes of its rows', async () => {
      // Tables whose rows others reference come after them, so each is emptied by its own TRUNCATE.
      const order = [
        'cms_entries',
        'cms_content_types',
        'helpdesk_entries',
        'helpdesk_tickets',
        'helpdesk_contacts',
        'credentials',
        'site_settings',
        'plan_features',
        'site_domains',
        'sites',
      ];
      assert.deepEqual(new Set(order), new Set(CACHE_DEPENDENCIES.map(({ table }) => table)), 'every table read');
      for (const table of order) {
        const kept = [];
        for (const dependency of CACHE_DEPENDENCIES.filter((declared) => declared.table === table)) {
          const { key, scope } = await rowOf(dependency);
          const before = await answerOnB(dependency, scope, key, dependency.key);
          assert.equal(await answerOnB(dependency, scope, key, dependency.key), before, 'node B keeps the answer');
          kept.push({ dependency, key, scope, before });
        }
        await run(`truncate "${table}" cascade`);
        for (const { dependency, key, scope, before } of kept)
          await eventually(
            `node B to answer anew after ${table} was truncated (${dependency.scope})`,
            async () => ((await answerOnB(dependency, scope, key, dependency.key)) !== before ? true : undefined),
            BOUND_MS,
          );
      }
    });
  });
}
