// Benchmark: a mixed load at the shipped default, on PostgreSQL (issue #36). A fresh database gets a
// forum (topics, posts, 16 members with read marks and notifications), 100,000 Content API entries
// of a type `products` and help desk tickets, through SQL generate_series. Then `blume serve
// --single` answers 16 concurrent clients, each a member with its token: members read Latest,
// unread, a topic's page and their notifications, the Content API list (filter[category], sort=-price,
// page 2) and the help desk's open tickets (page 2), while others reply, like, mark topics read,
// write Content API entries and open tickets (90 % reads, 10 % writes). Four runs, each on a server
// started for it with a warm-up of 3 s first: read-only and mixed, with answers kept (the default)
// and with BLUME_CACHE_ANSWERS=off. The anchor is the same reads as bare SQL through `pg` (the
// statements of bench:forum, bench:cms and bench:helpdesk, bench/lib/anchors.ts), as many loops, same
// mix. Prints p50/p99 of reads and writes, each read's p99, the hit rate of the cache seam's caches
// (answers, then directories, from the counters the node logs each minute and at stop, warm-up
// included; the forum's kept pages, counts and lists keep their own versions beneath the seam,
// decisions 0106-0110, and count nothing), the node's memory with the caches as full as the run made
// them (RSS at the run's end; heap and the caches' bytes beside their bound from the log at stop),
// and the ratios.
// Target: under the mixed load the reads' p99 stays within 1.5x of their read-only p99.
//   npm run bench:mixed [-- seconds [short]]
// `short` seeds 10,000 topics with 100,000 posts and 20,000 tickets (a few minutes on 2 cores); the
// full size is bench:forum's and bench:helpdesk's (100,000 topics, 1,000,000 posts, 200,000
// tickets). BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) names the server
// where the fresh database is created and dropped after.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { mintCredential } from '../src/core/credentials/service.js';
import { openDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { createMember } from '../src/forum/members.js';
import { createForum } from '../src/forum/structure.js';
import { installAndSeed } from '../src/runtime.js';
import { createProductsType, seedProducts } from './lib/products.js';
import { cmsListAnchor, helpdeskListAnchor, memberAnchors } from './lib/anchors.js';
import { benchLogLevel, machineLine, mintForumToken, request, startServer, type HttpCall } from './lib/blume.js';
import { recordRun } from './lib/history.js';
import { withFreshDatabase } from './lib/sql.js';

recordRun('mixed');

const SECONDS = Number(process.argv[2] ?? 20);
const SHORT = process.argv[3] === 'short';
const TOPICS = SHORT ? 10_000 : 100_000;
const POSTS = SHORT ? 100_000 : 1_000_000;
const POSTS_PER_TOPIC = POSTS / TOPICS;
const TICKETS = SHORT ? 20_000 : 200_000;
const ENTRIES = 100_000;
const CATEGORIES = 10;
const MEMBERS = 16;
const CONNECTIONS = 16;
/** The newest topics: what members read and write in. */
const HOT_TOPICS = 50;
const READ_MARKS = 1_000;
const NOTIFICATIONS = 500;
const WARM_UP_SECONDS = 3;
const TARGET_RATIO = 1.5;
const SITE = 'community';
const PASSWORD = 'bench-password-0123456789';

interface Seeded {
  typeId: string;
  key: string;
  members: { id: string; username: string }[];
}

const topicId = (n: number): string => `t${String(n).padStart(11, '0')}`;
const postId = (n: number): string => `p${String(n).padStart(11, '0')}`;
/** The j-th seeded post of topic k (1-based; post n lies in topic 1 + n % TOPICS). */
const postOf = (k: number, j: number): string => postId(k - 1 + j * TOPICS);

async function seed(url: string): Promise<Seeded> {
  const handle = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    await runMigrations(handle);
    await installAndSeed(handle, SITE);
    const writer = await createMember(handle.db, SITE, {
      username: 'writer',
      email: 'writer@bench.test',
      password: PASSWORD,
      role: 'member',
    });
    const members = [];
    for (let i = 1; i <= MEMBERS; i++)
      members.push(
        await createMember(handle.db, SITE, {
          username: `member${i}`,
          email: `member${i}@bench.test`,
          password: PASSWORD,
          role: 'member',
        }),
      );
    const forum = await createForum(handle.db, SITE, { name: 'General', slug: 'general', visibility: 'public' });
    const type = await createProductsType(handle.db, SITE, CATEGORIES);
    const { token: key } = await mintCredential(handle.db, {
      kind: 'api_key',
      name: 'bench',
      siteId: SITE,
      scopes: ['cms-read', 'cms-write', 'helpdesk-read', 'helpdesk-write'],
    });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const started = performance.now();
      // The forum, as bench:forum seeds it: topic n's last post n minutes ago, posts spread evenly.
      await client.query(
        `insert into forum_topics (id, site_id, forum_id, author_id, title, slug, post_count, thread_count, last_post_at, created_at)
         select 't' || lpad(n::text, 11, '0'), $1, $2, $3, 'Topic number ' || n, 'topic-' || n, ${POSTS_PER_TOPIC}, ${POSTS_PER_TOPIC},
                now() - (n || ' minutes')::interval, now() - (n || ' minutes')::interval
         from generate_series(1, ${TOPICS}) n`,
        [SITE, forum.id, writer.id],
      );
      await client.query(
        `insert into forum_posts (id, site_id, topic_id, author_id, parent_id, root_id, depth, body_source, body_html, body_text, created_at)
         select 'p' || lpad(n::text, 11, '0'), $1, 't' || lpad((1 + n % ${TOPICS})::text, 11, '0'), $2, null,
                'p' || lpad(n::text, 11, '0'), 0, 'Reply ' || n, '<p>Reply ' || n || '</p>', 'Reply ' || n,
                now() - ((1 + n % ${TOPICS}) || ' minutes')::interval - ((${POSTS} - n) || ' milliseconds')::interval
         from generate_series(1, ${POSTS}) n`,
        [SITE, writer.id],
      );
      await client.query(`update forums set topic_count = ${TOPICS} where id = $1`, [forum.id]);
      const ids = members.map((m) => m.id);
      // Each member: marks on the newest topics (every other one behind its last post), notifications
      // from the writer (a quarter unread), a member since before the first topic.
      await client.query(
        `insert into forum_topic_reads (member_id, topic_id, site_id, last_read_post_id, last_read_at)
         select m, t.id, $2, 'p' || lpad((n - 1 + ${TOPICS})::text, 11, '0'),
                t.last_post_at - case when n % 2 = 0 then interval '0' else interval '1 minute' end
         from unnest($1::text[]) m, generate_series(1, ${READ_MARKS}) n join forum_topics t on t.id = 't' || lpad(n::text, 11, '0')`,
        [ids, SITE],
      );
      await client.query(
        `insert into forum_notifications (id, site_id, member_id, kind, topic_id, post_id, actor_id, read_at, created_at)
         select 'n' || i || '-' || n, $1, m, (array['reply', 'mention', 'like'])[1 + n % 3], p.topic_id, p.id, $3,
                case when n % 4 = 0 then null else now() end, now() - (n || ' minutes')::interval
         from unnest($2::text[]) with ordinality as mm(m, i) cross join generate_series(1, ${NOTIFICATIONS}) n
         join forum_posts p on p.id = 'p' || lpad((n * 97 + i)::text, 11, '0')`,
        [SITE, ids, writer.id],
      );
      await client.query(`update forum_members set read_before = now() - interval '1 year' where id = any($1)`, [ids]);
      // The Content API entries, as bench:cms seeds them.
      await seedProducts(client, {
        site: SITE,
        typeId: type.id,
        entries: ENTRIES,
        categories: CATEGORIES,
        now: 'now()',
      });
      // The help desk, as bench:helpdesk seeds its tickets (two thread entries each, no history).
      const opened = `now() - ((n % ${90 * 24 * 60}) || ' minutes')::interval`;
      await client.query(
        `insert into helpdesk_contacts (id, site_id, email, name) select 'c' || n, $1, 'customer' || n || '@example.test', 'Customer ' || n from generate_series(1, ${TICKETS / 10}) n`,
        [SITE],
      );
      await client.query(
        `insert into helpdesk_tickets (id, site_id, number, subject, status, priority, requester_id, channel, created_at, updated_at,
                first_response_due_at, resolution_due_at)
         select 't' || n, $1, n, 'Ticket ' || n, (array['new','open','pending','on_hold','solved','closed'])[1 + n % 6],
                (array['low','normal','high','urgent'])[1 + n % 4], 'c' || (1 + n % ${TICKETS / 10}), 'email',
                ${opened}, ${opened} + interval '1 hour', ${opened} + interval '8 hours', ${opened} + interval '3 days'
         from generate_series(1, ${TICKETS}) n`,
        [SITE],
      );
      await client.query(`insert into helpdesk_counters (site_id, last_number) values ($1, ${TICKETS})`, [SITE]);
      await client.query(
        `insert into helpdesk_entries (id, site_id, ticket_id, author_kind, body_source, body_html, body_text, created_at)
         select 'e' || n || '-' || k, $1, 't' || n, case when k % 2 = 0 then 'agent' else 'requester' end, 'Message ' || k,
                '<p>Message ' || k || '</p>', 'Message ' || k, ${opened} + (k || ' minutes')::interval
         from generate_series(1, ${TICKETS}) n, generate_series(1, 2) k`,
        [SITE],
      );
      // As autovacuum would have by the time a real site is read: index-only scans need the visibility map.
      await client.query('vacuum analyze');
      console.log(
        `  seeded ${TOPICS} topics, ${POSTS} posts, ${ENTRIES} entries and ${TICKETS} tickets in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    } finally {
      await client.end();
    }
    return { typeId: type.id, key, members: members.map((m) => ({ id: m.id, username: m.username })) };
  } finally {
    await handle.close();
  }
}

const READS = ['Latest', 'unread', 'topic page', 'notifications', 'CMS list', 'help desk list'] as const;
const WRITES = ['reply', 'like', 'read mark', 'CMS entry', 'new ticket'] as const;
type OpName = (typeof READS)[number] | (typeof WRITES)[number];
/** Percent of requests per operation: 90 % reads, 10 % writes. */
const MIX: Record<OpName, number> = {
  Latest: 22,
  unread: 14,
  'topic page': 20,
  notifications: 14,
  'CMS list': 10,
  'help desk list': 10,
  reply: 3,
  like: 2,
  'read mark': 2,
  'CMS entry': 1.5,
  'new ticket': 1.5,
};
const isRead = (op: OpName): boolean => (READS as readonly string[]).includes(op);

const hotTopic = (): number => 1 + Math.floor(Math.random() * HOT_TOPICS);

function chooser(ops: OpName[]): () => OpName {
  const total = ops.reduce((sum, op) => sum + MIX[op], 0);
  return () => {
    let at = Math.random() * total;
    for (const op of ops) if ((at -= MIX[op]) < 0) return op;
    return ops.at(-1)!;
  };
}

class Samples {
  private readonly byOp = new Map<OpName, number[]>();
  failures = 0;
  add(op: OpName, ms: number): void {
    const list = this.byOp.get(op) ?? [];
    list.push(ms);
    this.byOp.set(op, list);
  }
  count(filter: (op: OpName) => boolean): number {
    return [...this.byOp].filter(([op]) => filter(op)).reduce((sum, [, list]) => sum + list.length, 0);
  }
  percentiles(filter: (op: OpName) => boolean): { p50: number; p99: number; n: number } {
    const all = [...this.byOp]
      .filter(([op]) => filter(op))
      .flatMap(([, list]) => list)
      .sort((a, b) => a - b);
    const at = (q: number) => all[Math.min(all.length - 1, Math.floor(q * all.length))] ?? NaN;
    return { p50: at(0.5), p99: at(0.99), n: all.length };
  }
}

/** What the loops share while a run goes: each hot topic's newest post, for read marks. */
interface LoadState {
  newestPost: Map<number, string>;
  written: number;
}

function calls(seeded: Seeded, tokens: string[], state: LoadState) {
  const key = { authorization: `Bearer ${seeded.key}` };
  const json = (body: unknown) => {
    const text = JSON.stringify(body);
    return { body: text, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } };
  };
  return (op: OpName, loop: number, port: number, agent: http.Agent): HttpCall & { onAnswer?: (b: Buffer) => void } => {
    const member = { 'Authentication-Token': tokens[loop % tokens.length]! };
    const base = { port, agent };
    const topic = hotTopic();
    switch (op) {
      case 'Latest':
        return { ...base, path: '/api/forum/v1/topics?filter=latest', headers: member };
      case 'unread':
        return { ...base, path: '/api/forum/v1/topics?filter=unread', headers: member };
      case 'topic page':
        return { ...base, path: `/api/forum/v1/topics/${topicId(topic)}/posts?page_size=100`, headers: member };
      case 'notifications':
        return { ...base, path: '/api/forum/v1/notifications', headers: member };
      case 'CMS list':
        return {
          ...base,
          path: `/api/cms/v1/entries/products?filter[category]=c${Math.floor(Math.random() * CATEGORIES)}&sort=-price&page=2&page_size=10`,
          headers: key,
        };
      case 'help desk list':
        return {
          ...base,
          path: '/api/helpdesk/v1/tickets?status=open&sort=-updated_at&page=2&page_size=25',
          headers: key,
        };
      case 'reply': {
        const { body, headers } = json({ body: `A reply from loop ${loop}, number ${++state.written}.` });
        return {
          ...base,
          method: 'POST',
          path: `/api/forum/v1/topics/${topicId(topic)}/posts`,
          headers: { ...member, ...headers },
          body,
          onAnswer: (answer) => state.newestPost.set(topic, (JSON.parse(answer.toString()) as { id: string }).id),
        };
      }
      case 'like':
        return {
          ...base,
          method: Math.random() < 0.5 ? 'POST' : 'DELETE',
          path: `/api/forum/v1/posts/${postOf(topic, 1 + Math.floor(Math.random() * (POSTS_PER_TOPIC - 1)))}/like`,
          headers: member,
        };
      case 'read mark': {
        const newest = state.newestPost.get(topic) ?? postOf(topic, POSTS_PER_TOPIC - 1);
        const { body, headers } = json({ post_id: newest });
        return {
          ...base,
          method: 'POST',
          path: `/api/forum/v1/topics/${topicId(topic)}/read`,
          headers: { ...member, ...headers },
          body,
        };
      }
      case 'CMS entry': {
        const n = ++state.written;
        const { body, headers } = json({
          slug: `mixed-${Date.now().toString(36)}-${n}`,
          status: 'published',
          data: {
            title: `Mixed product ${n}`,
            price: Math.round(Math.random() * 100_000) / 100,
            category: `c${n % CATEGORIES}`,
          },
        });
        return { ...base, method: 'POST', path: '/api/cms/v1/entries/products', headers: { ...key, ...headers }, body };
      }
      case 'new ticket': {
        const n = ++state.written;
        const { body, headers } = json({
          subject: `Question ${n}`,
          body: `Body of question ${n}.`,
          requester: { email: `mixed${n % 500}@customer.example` },
        });
        return { ...base, method: 'POST', path: '/api/helpdesk/v1/tickets', headers: { ...key, ...headers }, body };
      }
    }
  };
}

/** CONNECTIONS loops, each a member sending `choose`'s requests back to back for `seconds`. */
async function load(
  port: number,
  seconds: number,
  choose: () => OpName,
  call: ReturnType<typeof calls>,
): Promise<Samples> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const samples = new Samples();
  const end = performance.now() + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, loop) => {
        while (performance.now() < end) {
          const op = choose();
          const { onAnswer, ...spec } = call(op, loop, port, agent);
          const started = performance.now();
          const answer = await request(spec);
          const ms = performance.now() - started;
          if (answer.status >= 300) {
            samples.failures += 1;
            if (samples.failures <= 3)
              console.log(`    ${op}: ${answer.status} ${answer.body.toString().slice(0, 200)}`);
            continue;
          }
          onAnswer?.(answer.body);
          samples.add(op, ms);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return samples;
}

/** The same reads as bare SQL, the same mix, as many loops over a pool. */
async function loadAnchors(url: string, seeded: Seeded, seconds: number): Promise<Samples> {
  const pool = new pg.Pool({ connectionString: url, max: CONNECTIONS });
  const samples = new Samples();
  const choose = chooser([...READS]);
  const end = performance.now() + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, loop) => {
        const client = await pool.connect();
        try {
          while (performance.now() < end) {
            const op = choose();
            const member = seeded.members[loop % seeded.members.length]!.id;
            const forum = memberAnchors(SITE, member, topicId(hotTopic()));
            const started = performance.now();
            if (op === 'Latest') await forum.latest!(client);
            else if (op === 'unread') await forum.unread!(client);
            else if (op === 'topic page') await forum.topicPage!(client);
            else if (op === 'notifications') await forum.notifications!(client);
            else if (op === 'CMS list')
              await cmsListAnchor(seeded.typeId, `c${Math.floor(Math.random() * CATEGORIES)}`)(client);
            else await helpdeskListAnchor(SITE, 'open', 25)(client);
            samples.add(op, performance.now() - started);
          }
        } finally {
          client.release();
        }
      }),
    );
  } finally {
    await pool.end();
  }
  return samples;
}

interface CacheLine {
  msg: string;
  cache?: string;
  kind?: 'answer' | 'directory';
  max_bytes?: number;
  hits?: number;
  misses?: number;
  bytes?: number;
  rss?: number;
  heap_used?: number;
}

/** The caches' counters the node logged (each minute and at stop), summed; the last memory line. */
function cacheCounters(log: string): {
  hitRate: string;
  byCache: string;
  heapMiB?: number;
  bytes?: number;
  bound: number;
} {
  const totals = new Map<string, { kind: string; hits: number; misses: number; bound: number }>();
  let memory: CacheLine | undefined;
  for (const text of log.split('\n')) {
    if (!text.startsWith('{') || !text.includes('"msg":"cache')) continue;
    const line = JSON.parse(text) as CacheLine;
    if (line.msg === 'caches') memory = line;
    else if (line.cache) {
      const total = totals.get(line.cache) ?? {
        kind: line.kind ?? 'directory',
        hits: 0,
        misses: 0,
        bound: line.max_bytes ?? 0,
      };
      total.hits += line.hits ?? 0;
      total.misses += line.misses ?? 0;
      totals.set(line.cache, total);
    }
  }
  const rate = (hits: number, misses: number) =>
    hits + misses > 0 ? `${((100 * hits) / (hits + misses)).toFixed(0)} %` : '-';
  const of = (kind: string) => {
    const kept = [...totals.values()].filter((t) => t.kind === kind);
    return rate(
      kept.reduce((sum, t) => sum + t.hits, 0),
      kept.reduce((sum, t) => sum + t.misses, 0),
    );
  };
  return {
    hitRate: totals.size === 0 ? 'not logged' : `${of('answer')} / ${of('directory')}`,
    byCache: [...totals]
      .filter(([, t]) => t.hits + t.misses > 0)
      .map(([name, t]) => `${name} ${rate(t.hits, t.misses)}`)
      .join(', '),
    heapMiB: memory?.heap_used === undefined ? undefined : memory.heap_used / 1048576,
    bytes: memory?.bytes,
    bound: [...totals.values()].reduce((sum, t) => sum + t.bound, 0),
  };
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

interface Run {
  label: string;
  samples: Samples;
  seconds: number;
  hitRate?: string;
  byCache?: string;
  memory?: string;
}

const ms = (value: number): string => (Number.isNaN(value) ? '' : value.toFixed(1));

async function main(url: string): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-mixed-'));
  try {
    console.log(
      `Mixed load on PostgreSQL${SHORT ? ' (short size)' : ''}: ${CONNECTIONS} members' clients, 90 % reads / 10 % writes, ${SECONDS} s per run after a ${WARM_UP_SECONDS} s warm-up`,
    );
    console.log(machineLine());
    const seeded = await seed(url);
    const tokens: string[] = [];
    const state: LoadState = { newestPost: new Map(), written: 0 };
    const runs: Run[] = [];
    let started = 0;
    for (const answers of ['on', 'off'] as const) {
      for (const mixed of [false, true]) {
        const logFile = path.join(work, `blume-${++started}.log`);
        const server = await startServer(
          {
            DATABASE_URL: url,
            BLUME_DATA_DIR: path.join(work, `data-${started}`),
            ...benchLogLevel(),
            BLUME_INSTANCE_ID: SITE,
            BLUME_CACHE_ANSWERS: answers,
            BLUME_RATE_API_PER_MINUTE: '1000000',
            BLUME_RATE_POSTS_PER_MINUTE: '1000000',
            BLUME_RATE_LOGIN_PER_MINUTE: '1000',
          },
          logFile,
          ['--single'],
        );
        let samples: Samples;
        let rss: number;
        try {
          if (tokens.length === 0) {
            for (const member of seeded.members) {
              tokens.push(await mintForumToken(server.port, member.username, PASSWORD));
            }
          }
          const call = calls(seeded, tokens, state);
          const choose = chooser(mixed ? [...READS, ...WRITES] : [...READS]);
          await load(server.port, WARM_UP_SECONDS, choose, call);
          samples = await load(server.port, SECONDS, choose, call);
          rss = rssMiB(server.pid);
        } finally {
          await server.stop();
        }
        const counters = cacheCounters(await readFile(logFile, 'utf8'));
        runs.push({
          label: `${mixed ? 'mixed' : 'read-only'}, answers kept ${answers}`,
          samples,
          seconds: SECONDS,
          hitRate: counters.hitRate,
          byCache: counters.byCache,
          memory: `${rss.toFixed(0)} / ${counters.heapMiB?.toFixed(0) ?? '?'} / ${counters.bytes === undefined ? '?' : (counters.bytes / 1048576).toFixed(1)} of ${(counters.bound / 1048576).toFixed(0)}`,
        });
      }
    }
    runs.push({
      label: 'bare SQL, the same reads',
      samples: await loadAnchors(url, seeded, SECONDS),
      seconds: SECONDS,
    });

    console.log('');
    console.log(
      '| Run | req/s | reads p50 | reads p99 | writes p50 | writes p99 | errors | hit rate: answers / directories | MiB: RSS / heap / caches of their bound |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const run of runs) {
      const reads = run.samples.percentiles(isRead);
      const writes = run.samples.percentiles((op) => !isRead(op));
      const rate = (run.samples.count(() => true) / run.seconds).toFixed(0);
      console.log(
        `| ${run.label} | ${rate} | ${ms(reads.p50)} | ${ms(reads.p99)} | ${ms(writes.p50)} | ${ms(writes.p99)} | ${run.samples.failures} | ${run.hitRate ?? ''} | ${run.memory ?? ''} |`,
      );
    }
    console.log('');
    console.log(`| p99 ms per read | ${runs.map((run) => run.label).join(' | ')} |`);
    console.log(`| --- | ${runs.map(() => '---').join(' | ')} |`);
    for (const op of [...READS, ...WRITES])
      console.log(`| ${op} | ${runs.map((run) => ms(run.samples.percentiles((o) => o === op).p99)).join(' | ')} |`);
    console.log('');
    for (const run of runs.filter((r) => r.byCache)) console.log(`  hit rate per cache, ${run.label}: ${run.byCache}`);
    const p99 = (index: number) => runs[index]!.samples.percentiles(isRead).p99;
    const ratio = (a: number, b: number) => (p99(a) / p99(b)).toFixed(2);
    const kept = p99(1) / p99(0);
    console.log(
      `  reads p99, mixed / read-only, answers kept (the default): ${kept.toFixed(2)}x (target <= ${TARGET_RATIO}x: ${kept <= TARGET_RATIO ? 'met' : 'MISSED'})`,
    );
    console.log(`  reads p99, mixed / read-only, answers off: ${ratio(3, 2)}x`);
    console.log(`  reads p99 under the mixed load, answers kept / off: ${ratio(1, 3)}x`);
    console.log(
      `  reads p99 under the mixed load / bare SQL of the same reads: kept ${ratio(1, 4)}x, off ${ratio(3, 4)}x`,
    );
    const failed = runs.reduce((sum, run) => sum + run.samples.failures, 0);
    if (failed > 0) throw new Error(`${failed} requests answered an error; no measurement`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await withFreshDatabase('blume_bench_mixed', main);
