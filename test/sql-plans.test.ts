// The hand-tuned reads keep their SQL and its plan in test/sql-plans/*.sql, compared here as the
// OpenAPI documents are: a code change to a statement, or a plan that turns after a migration or a
// PostgreSQL upgrade, shows up as a diff in review. `npm run sql-plans:update` rewrites the files.
//
// The statements are not copies: each endpoint is requested through the real app on PostgreSQL
// while a hook on node-postgres logs what the request sends. Each is then planned as the server
// plans it: a named (prepared) statement with its generic plan, any other with its values
// (src/db/client.ts), as EXPLAIN (COSTS OFF). The database has the benches' shape (bench/forum.ts,
// cms.ts, helpdesk.ts) at a tenth of their size or less, with fixed ids and times.
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { seedProducts } from '../bench/lib/products.js';
import { seedHelpdesk } from '../bench/lib/seed-helpdesk.js';
import { createType } from '../src/cms/content-types.js';
import { POSTGRES_SESSION_OPTIONS } from '../src/db/client.js';
import { createMember } from '../src/forum/members.js';
import { createForum } from '../src/forum/structure.js';
import { startMemberSession } from '../src/forum/ui/sessions.js';
import { cmsApi, mintApiKey } from './factories/cms.js';
import { addMember, communityHost, forumApi, makeCommunity } from './factories/forum.js';
import { helpdeskApi } from './factories/helpdesk.js';
import { buildTestApp, signIn, type TestApp } from './helpers/app.js';

const SITE = 'community';
const update = process.env.UPDATE_SNAPSHOTS === '1';
const TOPICS = 10_000;
const BIG_TOPIC = 't00000000001';
const BIG_TOPIC_THREADS = 200;
const BIG_TOPIC_REPLIES = 9;
const OTHER_POSTS = 20_000;
const READ_MARKS = 2_000;
const NOTIFICATIONS = 2_000;
const ENTRIES = 20_000;
const TICKETS = 20_000;
/** The seed's clock: every time in the database is before it, so plans and reports do not move with the day. */
const SEED_NOW = `timestamptz '2026-06-01 00:00:00+00'`;
const REPORT_RANGE = 'from=2026-03-04&to=2026-05-31';

/**
 * Statements every request may send before its read: the site (kept for a while, so sent or not by
 * timing) and the credential. They are not what the snapshots are about, and are left out.
 */
const REQUEST_SETUP = /"(sites|credentials)"/;

interface Sent {
  name: string | undefined;
  text: string;
  values: unknown[];
}

/**
 * The statements sent by the request in flight, as Drizzle hands them to node-postgres: to the pool,
 * or to a client it checked out (a transaction). A pool's query runs on a client outside the
 * request's context (it may wait for a connection), so it is logged once, at the pool.
 */
const log = new AsyncLocalStorage<Sent[]>();
const clientQuery = pg.Client.prototype.query;
const poolQuery = pg.Pool.prototype.query;
function logged(original: (...args: unknown[]) => unknown) {
  return function (this: unknown, ...args: unknown[]) {
    const sent = log.getStore();
    if (!sent) return original.apply(this, args);
    const [first, second] = args;
    const config = (typeof first === 'string' ? { text: first } : first) as {
      name?: string;
      text: string;
      values?: unknown[];
    };
    sent.push({
      name: config.name || undefined,
      text: config.text,
      values: config.values ?? (Array.isArray(second) ? second : []),
    });
    return log.exit(() => original.apply(this, args));
  };
}
function logQueries(): void {
  pg.Client.prototype.query = logged(clientQuery as (...args: unknown[]) => unknown) as typeof clientQuery;
  pg.Pool.prototype.query = logged(poolQuery as (...args: unknown[]) => unknown) as typeof poolQuery;
}

/** A value as SQL text, to EXECUTE a prepared statement with (node-postgres sends the same text). */
function literal(client: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Date) return client.escapeLiteral(value.toISOString());
  if (Array.isArray(value))
    return client.escapeLiteral(
      `{${value.map((item) => (item === null ? 'NULL' : `"${String(item).replace(/(["\\])/g, '\\$1')}"`)).join(',')}}`,
    );
  if (typeof value === 'object') return client.escapeLiteral(JSON.stringify(value));
  return client.escapeLiteral(String(value));
}

describe(
  'SQL plans of the hand-tuned reads',
  { skip: !process.env.TEST_DATABASE_URL && 'TEST_DATABASE_URL is unset: the plans are compared on PostgreSQL only' },
  () => {
    let t: TestApp;
    let planner: pg.Client;
    /** Ids the app makes at random, by the names the snapshots give them. */
    const names = new Map<string, string>();
    let forumId = '';
    let readerToken = '';
    let readerSession = '';
    let cmsKey = '';
    let helpdeskKey = '';

    before(async () => {
      logQueries();
      t = await buildTestApp({ database: 'postgres' });
      const db = t.app.deps.database.db;
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, SITE);
      // Planned as Blume's pool plans them.
      planner = new pg.Client({ connectionString: t.testDatabase.url, options: POSTGRES_SESSION_OPTIONS });
      await planner.connect();
      // The help desk reports sum only days of the site's lifetime.
      await planner.query(`update sites set created_at = ${SEED_NOW} - interval '1 year' where id = $1`, [SITE]);
      const reader = await addMember(t.app, SITE, 'reader');
      const writer = await createMember(db, SITE, {
        username: 'writer',
        email: 'writer@members.test',
        password: 'pw-writer-0123456789',
        role: 'member',
      });
      const forum = await createForum(db, SITE, { name: 'General', slug: 'general', visibility: 'public' });
      const products = await createType(db, SITE, 'products', {
        name: 'Products',
        fields: [
          { name: 'title', type: 'text', required: true, options: { max_length: 200 } },
          { name: 'sku', type: 'slug', unique: true },
          { name: 'price', type: 'number' },
          { name: 'category', type: 'enum', options: { values: Array.from({ length: 10 }, (_, i) => `c${i}`) } },
          { name: 'body', type: 'markdown' },
        ],
      });
      forumId = forum.id;
      readerToken = reader.token;
      readerSession = await startMemberSession(db, SITE, reader.member.id);
      cmsKey = await mintApiKey(t.app, owner, SITE, ['cms-read']);
      helpdeskKey = await mintApiKey(t.app, owner, SITE, ['helpdesk-read']);
      names.set(forum.id, '<forum general>');
      names.set(reader.member.id, '<member reader>');
      names.set(writer.id, '<member writer>');
      names.set(products.id, '<type products>');
      await seed(planner, { forumId: forum.id, readerId: reader.member.id, writerId: writer.id, typeId: products.id });
    });

    after(async () => {
      pg.Client.prototype.query = clientQuery;
      pg.Pool.prototype.query = poolQuery;
      await planner?.end();
      await t?.close();
    });

    /** The request's statements and their plans, as the snapshot file reads. */
    async function snapshotOf(title: string, request: () => Promise<LightMyRequestResponse>): Promise<string> {
      const sent: Sent[] = [];
      // `inject` sends its request when awaited: inside the logged context.
      const response = await log.run(sent, async () => await request());
      assert.equal(response.statusCode, 200, `${title}: ${response.body.slice(0, 300)}`);
      const parts = [
        `-- ${title}\n-- Generated by test/sql-plans.test.ts; \`npm run sql-plans:update\` rewrites it. A value a plan\n` +
          '-- shows is written as the first parameter that holds it.\n',
      ];
      const reads = sent.filter((statement) => !REQUEST_SETUP.test(statement.text));
      for (const [i, statement] of reads.entries()) {
        const plan = await planOf(statement);
        const how = statement.name
          ? `prepared as ${statement.name}: its generic plan`
          : 'unnamed: planned with its values';
        parts.push(`-- ${i + 1}. ${how}\n${statement.text};\n${plan.map((line) => `--   ${line}`).join('\n')}\n`);
      }
      return stable(parts.join('\n'));
    }

    async function planOf(statement: Sent): Promise<string[]> {
      if (!/^\s*(select|with|insert|update|delete)\b/i.test(statement.text)) return ['(not planned)'];
      await planner.query(`set plan_cache_mode = ${statement.name ? 'force_generic_plan' : 'force_custom_plan'}`);
      await planner.query(`prepare plan_snapshot as ${statement.text}`);
      try {
        const values = statement.values.map((value) => literal(planner, value));
        const execute = values.length > 0 ? `execute plan_snapshot(${values.join(', ')})` : 'execute plan_snapshot';
        const result = await planner.query<{ 'QUERY PLAN': string }>(`explain (costs off) ${execute}`);
        let lines = result.rows.map((row) => row['QUERY PLAN']);
        // A value the plan shows (a custom plan) is written as its parameter.
        for (const [i, value] of statement.values.entries())
          if (typeof value === 'string' && value.length >= 8)
            lines = lines.map((line) => line.replaceAll(`'${value}'`, `$${i + 1}`));
        return lines;
      } finally {
        await planner.query('deallocate plan_snapshot');
      }
    }

    function stable(text: string): string {
      let out = text;
      for (const [id, name] of names) out = out.replaceAll(id, name);
      return out.replace(/'\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d(:\d\d)?)'/g, "'<time>'");
    }

    async function compare(name: string, title: string, request: () => Promise<LightMyRequestResponse>) {
      const text = await snapshotOf(title, request);
      const file = new URL(`sql-plans/${name}.sql`, import.meta.url);
      if (update) await writeFile(file, text);
      const committed = await readFile(file, 'utf8').catch(() => '');
      assert.equal(text, committed, `test/sql-plans/${name}.sql is stale: run \`npm run sql-plans:update\``);
    }

    const member = (path: string) => () => forumApi(t.app, SITE, readerToken, { method: 'GET', path });
    const memberPage = (url: string) => () =>
      t.app.inject({
        method: 'GET',
        url,
        headers: { host: communityHost(SITE), cookie: `blume_member=${readerSession}` },
      });

    it('forum topic lists', async () => {
      await compare(
        'forum-topics-forum',
        'GET /api/forum/v1/topics?forum_id=<forum general>',
        member(`/topics?forum_id=${forumId}`),
      );
      await compare(
        'forum-topics-forum-deep',
        'GET /api/forum/v1/topics?forum_id=<forum general>&page=500',
        member(`/topics?forum_id=${forumId}&page=500`),
      );
      await compare('forum-topics-latest', 'GET /api/forum/v1/topics?filter=latest', member('/topics?filter=latest'));
      await compare('forum-latest-page', 'GET /latest (the web UI, signed in)', memberPage('/latest'));
    });

    it('forum unread', async () => {
      await compare('forum-topics-unread', 'GET /api/forum/v1/topics?filter=unread', member('/topics?filter=unread'));
    });

    it('forum topic pages', async () => {
      await compare(
        'forum-topic-posts',
        `GET /api/forum/v1/topics/${BIG_TOPIC}/posts?page_size=100`,
        member(`/topics/${BIG_TOPIC}/posts?page_size=100`),
      );
      await compare(
        'forum-topic-threaded',
        `GET /api/forum/v1/topics/${BIG_TOPIC}/posts?view=threaded`,
        member(`/topics/${BIG_TOPIC}/posts?view=threaded`),
      );
      await compare('forum-topic-page', `GET /t/${BIG_TOPIC} (the web UI, signed in)`, memberPage(`/t/${BIG_TOPIC}`));
    });

    it('forum notifications', async () => {
      await compare('forum-notifications', 'GET /api/forum/v1/notifications', member('/notifications'));
    });

    it('Content API lists', async () => {
      const list = (path: string) => () => cmsApi(t.app, SITE, cmsKey, { method: 'GET', path });
      await compare('cms-entries', 'GET /api/cms/v1/entries/products', list('/entries/products'));
      const filtered = '/entries/products?filter[category]=c3&sort=-price&page=2&page_size=10';
      await compare('cms-entries-filtered', `GET /api/cms/v1${filtered}`, list(filtered));
    });

    it('help desk ticket list and reports', async () => {
      const read = (path: string) => () => helpdeskApi(t.app, SITE, { key: helpdeskKey }, { method: 'GET', path });
      const list = '/tickets?status=open&sort=-updated_at&page=2&page_size=25';
      await compare('helpdesk-tickets', `GET /api/helpdesk/v1${list}`, read(list));
      const search = '/tickets?q=product123&page_size=25';
      await compare('helpdesk-tickets-search', `GET /api/helpdesk/v1${search}`, read(search));
      const filtered = '/tickets?status=new,open&priority=high,urgent&category=cat3&sort=sla_due&page_size=25';
      await compare('helpdesk-tickets-filtered', `GET /api/helpdesk/v1${filtered}`, read(filtered));
      for (const kind of ['tickets', 'agents', 'categories', 'sla', 'trends']) {
        const path = `/reports/${kind}?${REPORT_RANGE}${kind === 'tickets' || kind === 'sla' ? '&interval=week' : ''}`;
        await compare(`helpdesk-report-${kind}`, `GET /api/helpdesk/v1${path}`, read(path));
      }
    });
  },
);

/** The benches' rows (bench/forum.ts, cms.ts, helpdesk.ts) at this file's sizes, with fixed ids and times. */
async function seed(
  client: pg.Client,
  ids: { forumId: string; readerId: string; writerId: string; typeId: string },
): Promise<void> {
  const { forumId, readerId, writerId, typeId } = ids;
  await client.query(
    `insert into forum_topics (id, site_id, forum_id, author_id, title, slug, post_count, last_post_at, created_at)
     select 't' || lpad(n::text, 11, '0'), $1, $2, $3, 'Topic number ' || n, 'topic-' || n, 10,
            ${SEED_NOW} - (n || ' minutes')::interval, ${SEED_NOW} - (n || ' minutes')::interval
     from generate_series(1, ${TOPICS}) n`,
    [SITE, forumId, readerId],
  );
  await client.query(
    `insert into forum_posts (id, site_id, topic_id, author_id, parent_id, root_id, depth, body_source, body_html, body_text, created_at)
     select 'b' || lpad(r::text, 5, '0') || lpad(d::text, 2, '0'), $1, $2, $3,
            case when d = 0 then null else 'b' || lpad(r::text, 5, '0') || lpad((d - 1)::text, 2, '0') end,
            'b' || lpad(r::text, 5, '0') || '00', d,
            'Post ' || r || '.' || d, '<p>Post ' || r || '.' || d || '</p>', 'Post ' || r || '.' || d,
            ${SEED_NOW} - interval '30 days' + (r * 60 + d) * interval '1 second'
     from generate_series(1, ${BIG_TOPIC_THREADS}) r, generate_series(0, ${BIG_TOPIC_REPLIES}) d`,
    [SITE, BIG_TOPIC, readerId],
  );
  await client.query(
    `insert into forum_posts (id, site_id, topic_id, author_id, parent_id, root_id, depth, body_source, body_html, body_text, created_at)
     select 'p' || lpad(n::text, 11, '0'), $1, 't' || lpad((2 + n % ${TOPICS - 1})::text, 11, '0'), $2, null,
            'p' || lpad(n::text, 11, '0'), 0, 'Reply ' || n, '<p>Reply ' || n || '</p>', 'Reply ' || n,
            ${SEED_NOW} - (n || ' seconds')::interval
     from generate_series(1, ${OTHER_POSTS}) n`,
    [SITE, readerId],
  );
  await client.query(`update forum_topics set post_count = $1 where id = $2`, [
    BIG_TOPIC_THREADS * (1 + BIG_TOPIC_REPLIES),
    BIG_TOPIC,
  ]);
  await client.query(`update forums set topic_count = ${TOPICS} where id = $1`, [forumId]);
  await client.query(
    `update forum_topics t set thread_count = c.n from (select topic_id, count(*)::integer n from forum_posts where parent_id is null group by topic_id) c where c.topic_id = t.id`,
  );
  await client.query(
    `insert into forum_topic_reads (member_id, topic_id, site_id, last_read_post_id, last_read_at)
     select $1, t.id, $2, 'p' || lpad(n::text, 11, '0'),
            t.last_post_at - case when n % 2 = 0 then interval '0' else interval '1 minute' end
     from generate_series(2, ${READ_MARKS + 1}) n join forum_topics t on t.id = 't' || lpad(n::text, 11, '0')`,
    [readerId, SITE],
  );
  await client.query(
    `insert into forum_notifications (id, site_id, member_id, kind, topic_id, post_id, actor_id, read_at, created_at)
     select 'n' || lpad(n::text, 11, '0'), $1, $2, (array['reply', 'mention', 'like'])[1 + n % 3],
            t.topic_id, t.id, $3, case when n % 4 = 0 then null else ${SEED_NOW} end, ${SEED_NOW} - (n || ' minutes')::interval
     from generate_series(1, ${NOTIFICATIONS}) n
     join forum_posts t on t.id = 'p' || lpad((n * 7)::text, 11, '0')`,
    [SITE, readerId, writerId],
  );
  // Every topic was read (src/forum/topic-views.ts), so lists find its views by key.
  await client.query(
    `insert into forum_topic_views (topic_id, site_id, views) select id, site_id, 100 from forum_topics`,
  );
  await client.query(`update forum_members set read_before = ${SEED_NOW} - interval '1 year' where id = $1`, [
    readerId,
  ]);

  await seedProducts(client, { site: SITE, typeId, entries: ENTRIES, categories: 10, now: SEED_NOW });

  await seedHelpdesk(client, {
    site: SITE,
    tickets: TICKETS,
    agents: 20,
    categories: 8,
    entriesPerTicket: 2,
    days: 90,
    now: SEED_NOW,
  });
  // As autovacuum would have by the time a real site is read (index-only scans need the visibility
  // map). A sample of 300,000 rows reads each table whole, so the statistics are the same every run.
  await client.query('set default_statistics_target = 1000');
  await client.query('vacuum analyze');
}
