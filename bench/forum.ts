// Benchmark: forum reads at size, on PostgreSQL. A fresh database gets 100,000 topics in one forum
// and 1,000,000 posts (one topic holds 2,000 of them, 200 threads of 10) through SQL
// generate_series; then one `blume serve --single` answers wrk on the topic list (page 1 and page
// 500 of the forum, page 1 across all forums) and the 2,000-post topic in threaded view,
// authenticated as a member. The anchor is
// `GET /up/` (no database) on the same server in the same run. Prints req/s and p99 (targets: p99
// <= 20 ms for lists, <= 100 ms threaded) and the EXPLAIN plans of the list and thread queries.
// Then the member's reads (issue #21): the reader holds 10,000 read marks and 5,000 notifications;
// Latest and unread through the API and Latest as the web UI page (p99 <= 20 ms), a classic topic
// page of 100 posts (p99 <= 30 ms) and the notifications list (p99 <= 10 ms), each beside its bare
// SQL anchor (the rows the endpoint reads, one plain statement per read, through `pg`, as many loops as
// wrk's connections; the endpoint may fold several reads into one statement, and after the first
// request answers the member's counts from what the node cached, decision 0106, and a topic's page
// and the member's notification page too while their versions stay put, decision 0109, and pages
// of its topic lists, Latest, a forum's and unread, in the API and the web UI, decision 0110),
// with the ratio of the p99s printed, and the CPU time the server and PostgreSQL spent per request
// (from /proc: where a request's time goes).
//   npm run bench:forum [-- seconds]
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server where the
// fresh database is created and dropped after. BENCH_FORUM_DATABASE_URL names a database to keep
// between runs instead: seeded on the first run, reused (with a new session) after.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase, queryRows } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { createForum } from '../src/forum/structure.js';
import { createMember } from '../src/forum/members.js';
import { installAndSeed } from '../src/runtime.js';
import { startMemberSession } from '../src/forum/ui/sessions.js';
import {
  benchLogLevel,
  machineLine,
  mintForumToken,
  request,
  runWrk,
  startServer,
  type BlumeServer,
  type WrkResult,
} from './lib/blume.js';
import { memberAnchors, NOTIFICATION_WINDOW_SQL, VISIBLE_TOPIC_SQL } from './lib/anchors.js';
import { cpuSeconds, cpuSecondsOf } from './lib/cpu.js';
import { latencyRow, loadSql, withFreshDatabase, type Latencies } from './lib/sql.js';
import { recordRun } from './lib/history.js';

recordRun('forum');

const SECONDS = Number(process.argv[2] ?? 10);
const TOPICS = 100_000;
const POSTS = 1_000_000;
const BIG_TOPIC_THREADS = 200;
const BIG_TOPIC_REPLIES = 9;
const CONNECTIONS = 20;
const TARGET_LIST_P99_MS = 20;
const TARGET_THREADED_P99_MS = 100;
const TARGET_TOPIC_PAGE_P99_MS = 30;
const TARGET_NOTIFICATIONS_P99_MS = 10;
const READ_MARKS = 10_000;
const NOTIFICATIONS = 5_000;
const SITE = 'community';
const PASSWORD = 'bench-password-0123456789';
const BIG_TOPIC = 't00000000001';

/** Topics, then the big topic's 200 threads of 10, then the other posts spread over the topics. */
interface Seeded {
  forumId: string;
  bigTopic: string;
  memberId: string;
  /** The reader's web UI session cookie value. */
  session: string;
}

async function seed(url: string): Promise<Seeded> {
  const handle = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    await runMigrations(handle);
    const [reader] = await queryRows<{ id: string; forum: string }>(
      handle.db,
      sql`select m.id, (select id from forums where site_id = ${SITE} and slug = 'general') as forum from forum_members m where m.site_id = ${SITE} and m.username = 'reader'`,
    );
    if (reader) {
      console.log('  reusing the seeded database');
      return {
        forumId: reader.forum,
        bigTopic: BIG_TOPIC,
        memberId: reader.id,
        session: await startMemberSession(handle.db, SITE, reader.id),
      };
    }
    await installAndSeed(handle, SITE);
    const member = await createMember(handle.db, SITE, {
      username: 'reader',
      email: 'reader@bench.test',
      password: PASSWORD,
      role: 'member',
    });
    const writer = await createMember(handle.db, SITE, {
      username: 'writer',
      email: 'writer@bench.test',
      password: PASSWORD,
      role: 'member',
    });
    const forum = await createForum(handle.db, SITE, { name: 'General', slug: 'general', visibility: 'public' });
    const session = await startMemberSession(handle.db, SITE, member.id);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const started = performance.now();
      await client.query(
        `insert into forum_topics (id, site_id, forum_id, author_id, title, slug, post_count, last_post_at, created_at)
         select 't' || lpad(n::text, 11, '0'), $1, $2, $3, 'Topic number ' || n, 'topic-' || n, 10,
                now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval
         from generate_series(1, ${TOPICS}) n`,
        [SITE, forum.id, member.id],
      );
      const bigTopic = BIG_TOPIC;
      const bigPosts = BIG_TOPIC_THREADS * (1 + BIG_TOPIC_REPLIES);
      // The big topic: thread roots r, each with a chain of replies (depth 1..9) under it.
      await client.query(
        `insert into forum_posts (id, site_id, topic_id, author_id, parent_id, root_id, depth, body_source, body_html, body_text, created_at)
         select 'b' || lpad(r::text, 5, '0') || lpad(d::text, 2, '0'), $1, $2, $3,
                case when d = 0 then null else 'b' || lpad(r::text, 5, '0') || lpad((d - 1)::text, 2, '0') end,
                'b' || lpad(r::text, 5, '0') || '00', d,
                'Post ' || r || '.' || d, '<p>Post ' || r || '.' || d || '</p>', 'Post ' || r || '.' || d,
                now() - interval '30 days' + (r * 60 + d) * interval '1 second'
         from generate_series(1, ${BIG_TOPIC_THREADS}) r, generate_series(0, ${BIG_TOPIC_REPLIES}) d`,
        [SITE, bigTopic, member.id],
      );
      await client.query(
        `insert into forum_posts (id, site_id, topic_id, author_id, parent_id, root_id, depth, body_source, body_html, body_text, created_at)
         select 'p' || lpad(n::text, 11, '0'), $1, 't' || lpad((2 + n % ${TOPICS - 1})::text, 11, '0'), $2, null,
                'p' || lpad(n::text, 11, '0'), 0, 'Reply ' || n, '<p>Reply ' || n || '</p>', 'Reply ' || n,
                now() - (n || ' seconds')::interval
         from generate_series(1, ${POSTS - bigPosts}) n`,
        [SITE, member.id],
      );
      await client.query(`update forum_topics set post_count = ${bigPosts} where id = '${bigTopic}'`);
      // The counters the write paths keep (rows inserted here bypass them): every post above is a
      // thread of its own except the big topic's replies.
      await client.query(`update forums set topic_count = ${TOPICS} where id = $1`, [forum.id]);
      await client.query(
        `update forum_topics t set thread_count = c.n from (select topic_id, count(*)::integer n from forum_posts where parent_id is null group by topic_id) c where c.topic_id = t.id`,
      );
      // The reader's marks on the 10,000 newest topics: every other one read to its last post, the
      // rest a minute short of it (new replies since), so unread lists skip half of what they meet.
      await client.query(
        `insert into forum_topic_reads (member_id, topic_id, site_id, last_read_post_id, last_read_at)
         select $1, t.id, $2, 'p' || lpad(n::text, 11, '0'),
                t.last_post_at - case when n % 2 = 0 then interval '0' else interval '1 minute' end
         from generate_series(2, ${READ_MARKS + 1}) n join forum_topics t on t.id = 't' || lpad(n::text, 11, '0')`,
        [member.id, SITE],
      );
      // Replies, mentions and likes by the writer on posts spread over the forum, a quarter unread.
      await client.query(
        `insert into forum_notifications (id, site_id, member_id, kind, topic_id, post_id, actor_id, read_at, created_at)
         select 'n' || lpad(n::text, 11, '0'), $1, $2, (array['reply', 'mention', 'like'])[1 + n % 3],
                t.topic_id, t.id, $3, case when n % 4 = 0 then null else now() end, now() - (n || ' minutes')::interval
         from generate_series(1, ${NOTIFICATIONS}) n
         join forum_posts t on t.id = 'p' || lpad((n * 97)::text, 11, '0')`,
        [SITE, member.id, writer.id],
      );
      // A member since before the first topic: every topic it has no mark on is unread to it.
      await client.query(`update forum_members set read_before = now() - interval '1 year' where id = $1`, [member.id]);
      // As autovacuum would have by the time a real forum is read: index-only scans need the visibility map.
      await client.query('vacuum analyze');
      console.log(
        `  seeded ${TOPICS} topics and ${POSTS} posts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      return { forumId: forum.id, bigTopic, memberId: member.id, session };
    } finally {
      await client.end();
    }
  } finally {
    await handle.close();
  }
}

/** The plans of the queries the three endpoints run, as the server would run them (src/forum/topic-list.ts, topics.ts). */
async function explain(url: string, forumId: string, bigTopic: string): Promise<void> {
  // The forum and its page in one named statement (forumTopicPage), run as the server's pool runs
  // it: with its generic plan (src/db/client.ts). The page's ids come past a node's mark if the forum
  // is still at the mark's version, else from the start of the list.
  const order = 'order by pinned desc, last_post_at desc, id desc';
  const visible = 'forum_id = f.id and hidden = false';
  const topicPage = `select f.topic_count, f.topic_list_version, t.id, t.last_post_at::text, m.username
    from (select id, topic_count, topic_list_version from forums where id = $1 limit 1) f
    left join forum_topics t on t.id = any(case when f.id = $2 and f.topic_list_version = $3::bigint
      then array(select id from forum_topics where ${visible} and (pinned, last_post_at, id) < ($4::boolean, $5::timestamptz, $6::text) ${order} limit $7 offset $8)
      else array(select id from forum_topics where ${visible} ${order} limit $7 offset $9) end)
    left join forum_members m on m.id = t.author_id order by t.pinned desc, t.last_post_at desc, t.id desc`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set plan_cache_mode = force_generic_plan');
    await client.query(`prepare topic_page as ${topicPage}`);
    // The mark a node learns from its first request for page 500: the row just before the page.
    const marked = await client.query<{ pinned: boolean; last_post_at: string; id: string; version: string }>(
      `select t.pinned, t.last_post_at::text as last_post_at, t.id, f.topic_list_version as version from forum_topics t join forums f on f.id = t.forum_id
       where t.forum_id = $1 and not t.hidden order by t.pinned desc, t.last_post_at desc, t.id desc offset 4989 limit 1`,
      [forumId],
    );
    const mark = marked.rows[0]!;
    const literal = (value: string | number | boolean): string =>
      typeof value === 'string' ? `'${value}'` : String(value);
    const execute = (values: (string | number | boolean)[]): string =>
      `execute topic_page(${values.map(literal).join(', ')})`;
    const noMark = ['', -1, false, '-infinity', ''];
    const queries: [string, string][] = [
      // The total comes from the forum's counters, on the forum row the page query reads too.
      [
        'topic list page 500, past the mark of the row before it',
        execute([forumId, forumId, Number(mark.version), mark.pinned, mark.last_post_at, mark.id, 10, 0, 0]),
      ],
      [
        'topic list page 500, no mark yet: from the start, the row before the page included',
        execute([forumId, ...noMark, 11, 0, 4989]),
      ],
      ['topic list page 1', execute([forumId, ...noMark, 10, 0, 0])],
      [
        'threaded page 1',
        `select p.id, m.username from forum_posts p left join forum_members m on m.id = p.author_id where p.topic_id = '${bigTopic}' and p.root_id in (select r.id from forum_posts r where r.topic_id = '${bigTopic}' and r.parent_id is null order by r.created_at, r.id limit 10) order by p.depth, p.created_at, p.id`,
      ],
    ];
    for (const [label, sql] of queries) {
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers, costs off, timing off) ${sql}`,
      );
      const lines = plan.rows.map((row) => row['QUERY PLAN']);
      const seqScan = lines.some((line) => /Seq Scan on forum_(topics|posts)/.test(line));
      console.log(`\n  EXPLAIN ${label}${seqScan ? '   <-- FULL TABLE SCAN' : ''}`);
      for (const line of lines) console.log(`    ${line}`);
    }
  } finally {
    await client.end();
  }
}

/** The plans of the member's unread list and notifications, as bare SQL with the member's values. */
async function explainMember(url: string, memberId: string, bigTopic: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const notUpToDate = `t.last_post_at > (select read_before from forum_members where id = '${memberId}') and not exists (select 1 from forum_topic_reads r where r.member_id = '${memberId}' and r.topic_id = t.id and r.last_read_at >= t.last_post_at)`;
    const visible = `t.site_id = '${SITE}' and t.forum_id in (select id from forums where site_id = '${SITE}' and visibility in ('public', 'members')) and t.hidden = false`;
    const window = NOTIFICATION_WINDOW_SQL.replaceAll('$1', `'${SITE}'`).replaceAll('$2', `'${memberId}'`);
    const notifications = `from (${window}) n cross join lateral (${VISIBLE_TOPIC_SQL}) visible`;
    const queries: [string, string][] = [
      [
        'unread page 1',
        `select t.id from forum_topics t where ${visible} and ${notUpToDate} order by t.last_post_at desc, t.id desc limit 10`,
      ],
      [
        'unread total (counted up to 1,001)',
        `select count(*) from (select 1 from forum_topics t where ${visible} and ${notUpToDate} limit 1001) capped`,
      ],
      [
        'topic page of 100 posts',
        `select p.id from forum_posts p where p.topic_id = '${bigTopic}' order by p.created_at, p.id limit 100`,
      ],
      ['notifications page 1', `select n.id ${notifications} order by n.created_at desc, n.id desc limit 10`],
      ['notifications total', `select count(*) ${notifications}`],
    ];
    for (const [label, sql] of queries) {
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers, costs off, timing off) ${sql}`,
      );
      console.log(`\n  EXPLAIN ${label}`);
      for (const row of plan.rows) console.log(`    ${row['QUERY PLAN']}`);
    }
  } finally {
    await client.end();
  }
}

function line(label: string, result: WrkResult, target?: number): string {
  // Error answers are fast and would flatter the percentiles: a run with any is no measurement.
  const met = result.p99Ms <= (target ?? Infinity) && result.non2xx === 0;
  const verdict = target === undefined ? '' : `  (target p99 <= ${target} ms: ${met ? 'met' : 'MISSED'})`;
  const errors = result.non2xx > 0 ? `  ${result.non2xx} non-2xx!` : '';
  return `  ${label.padEnd(34)} ${result.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${result.p50Ms.toFixed(2).padStart(7)} ms   p99 ${result.p99Ms.toFixed(2).padStart(7)} ms${verdict}${errors}`;
}

function ratioLine(label: string, endpoint: WrkResult, anchor: Latencies, target: number): string {
  return `${line(label, endpoint, target)}\n${latencyRow(`  anchor: the same reads in bare SQL`, anchor)}\n    p99 ratio endpoint / bare SQL: ${(endpoint.p99Ms / anchor.p99Ms).toFixed(2)}x`;
}

async function main(url: string): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-forum-'));
  let server: BlumeServer | undefined;
  try {
    console.log(
      `Forum reads on PostgreSQL: ${TOPICS} topics, ${POSTS} posts, ${CONNECTIONS} connections, ${SECONDS} s per run`,
    );
    console.log(machineLine());
    const { forumId, bigTopic, memberId, session } = await seed(url);
    // One token makes every request: at the default API limit (600 a minute) most answers would be 429s.
    const env = {
      DATABASE_URL: url,
      BLUME_DATA_DIR: path.join(work, 'data'),
      ...benchLogLevel(),
      BLUME_INSTANCE_ID: SITE,
      BLUME_RATE_API_PER_MINUTE: '1000000',
    };
    server = await startServer(env, path.join(work, 'blume.log'), ['--single']);
    const token = await mintForumToken(server.port, 'reader', PASSWORD);
    const headers = { 'Authentication-Token': token };
    const base = `http://127.0.0.1:${server.port}`;
    const targets = [
      { label: 'GET /up/ (anchor, no database)', url: `${base}/up/` },
      {
        label: 'topics?forum_id page 1',
        url: `${base}/api/forum/v1/topics?forum_id=${forumId}`,
        target: TARGET_LIST_P99_MS,
      },
      {
        label: 'topics?forum_id page 500',
        url: `${base}/api/forum/v1/topics?forum_id=${forumId}&page=500`,
        target: TARGET_LIST_P99_MS,
      },
      { label: 'topics, all forums, page 1', url: `${base}/api/forum/v1/topics`, target: TARGET_LIST_P99_MS },
      {
        label: '2,000-post topic, threaded p1',
        url: `${base}/api/forum/v1/topics/${bigTopic}/posts?view=threaded`,
        target: TARGET_THREADED_P99_MS,
      },
    ];
    for (const t of targets) {
      const check = await request({ port: server.port, path: t.url.slice(base.length), headers });
      if (check.status !== 200) throw new Error(`${t.label}: ${check.status} ${check.body.toString().slice(0, 300)}`);
    }
    console.log('');
    for (const t of targets) {
      await runWrk(t.url, { connections: CONNECTIONS, threads: 2, seconds: 2, headers });
      console.log(
        line(
          t.label,
          await runWrk(t.url, { connections: CONNECTIONS, threads: 2, seconds: SECONDS, headers }),
          t.target,
        ),
      );
    }

    console.log(`\n  The reader: ${READ_MARKS} read marks, ${NOTIFICATIONS} notifications`);
    const anchors = memberAnchors(SITE, memberId, bigTopic);
    const memberTargets = [
      {
        label: 'Latest (API, filter=latest)',
        path: '/api/forum/v1/topics?filter=latest',
        anchor: anchors.latest!,
        target: TARGET_LIST_P99_MS,
        headers,
      },
      {
        label: 'Latest (web UI page, unread marks)',
        path: '/latest',
        anchor: anchors.latestPage!,
        target: TARGET_LIST_P99_MS,
        headers: { Cookie: `blume_member=${session}` },
      },
      {
        label: 'topic page of 20 posts (web UI)',
        path: `/t/${bigTopic}`,
        anchor: anchors.topicPageUi!,
        target: TARGET_TOPIC_PAGE_P99_MS,
        headers: { Cookie: `blume_member=${session}` },
      },
      {
        label: 'unread (API, filter=unread)',
        path: '/api/forum/v1/topics?filter=unread',
        anchor: anchors.unread!,
        target: TARGET_LIST_P99_MS,
        headers,
      },
      {
        label: 'topic page of 100 posts (classic)',
        path: `/api/forum/v1/topics/${bigTopic}/posts?page_size=100`,
        anchor: anchors.topicPage!,
        target: TARGET_TOPIC_PAGE_P99_MS,
        headers,
      },
      {
        label: 'notifications page 1',
        path: '/api/forum/v1/notifications',
        anchor: anchors.notifications!,
        target: TARGET_NOTIFICATIONS_P99_MS,
        headers,
      },
    ];
    const pool = new pg.Pool({ connectionString: url, max: CONNECTIONS });
    try {
      for (const t of memberTargets) {
        const check = await request({ port: server.port, path: t.path, headers: t.headers });
        if (check.status !== 200) throw new Error(`${t.label}: ${check.status} ${check.body.toString().slice(0, 300)}`);
        await runWrk(`${base}${t.path}`, { connections: CONNECTIONS, threads: 2, seconds: 2, headers: t.headers });
        const [serverCpu, databaseCpu] = [cpuSeconds(server.pid), cpuSecondsOf('postgres')];
        const endpoint = await runWrk(`${base}${t.path}`, {
          connections: CONNECTIONS,
          threads: 2,
          seconds: SECONDS,
          headers: t.headers,
        });
        const perRequest = (seconds: number): string =>
          ((seconds / (endpoint.requestsPerSecond * SECONDS)) * 1000).toFixed(2);
        const cpu = `    CPU per request: server ${perRequest(cpuSeconds(server.pid) - serverCpu)} ms, PostgreSQL ${perRequest(cpuSecondsOf('postgres') - databaseCpu)} ms`;
        const anchor = await loadSql(pool, CONNECTIONS, SECONDS, t.anchor);
        console.log(`${ratioLine(t.label, endpoint, anchor, t.target)}\n${cpu}`);
      }
    } finally {
      await pool.end();
    }
    await explain(url, forumId, bigTopic);
    await explainMember(url, memberId, bigTopic);
  } finally {
    if (server) await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

const kept = process.env.BENCH_FORUM_DATABASE_URL;
if (kept) await main(kept);
else await withFreshDatabase('blume_bench_forum', main);
