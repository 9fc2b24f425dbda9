// Benchmark: the help desk at size, on PostgreSQL. A fresh database gets 200,000 tickets over 90
// days with 2,000,000 thread entries and their history (SQL generate_series); one `blume serve
// --single` then answers wrk (32 connections) on a ticket list page and on a 90-day report, with a
// `helpdesk-read` key, and takes inbound raw MIME mail from 32 concurrent senders. The anchor of
// each is the same work as bare SQL through `pg` in the same run (the list's rows and count; the
// report's one statement; a ticket, its entry and its history inserted in one transaction).
// Targets: list p99 <= 20 ms, report p99 <= 300 ms, inbound >= 200 messages/s.
//   npm run bench:helpdesk [-- seconds]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { mintCredential } from '../src/core/credentials/service.js';
import { applyDesiredSettings, replaceDesiredSettings } from '../src/core/settings/service.js';
import { openDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { installAndSeed } from '../src/runtime.js';
import { machineLine, request, runWrk, startServer, type BlumeServer } from './lib/blume.js';
import { latencyRow, loadSql, withFreshDatabase } from './lib/sql.js';

const SECONDS = Number(process.argv[2] ?? 10);
const TICKETS = 200_000;
const ENTRIES_PER_TICKET = 10;
const DAYS = 90;
const CONNECTIONS = 32;
const INBOUND_MESSAGES = 2_000;
const TARGET_LIST_P99_MS = 20;
const TARGET_REPORT_P99_MS = 300;
const TARGET_INBOUND_PER_S = 200;
const SITE = 'community';
const INBOUND_SECRET = 'bench-inbound-secret';
/** The server's key, so the inbound secret sealed here opens there. */
const SECRET_KEY = 'bench-secret-key-bench-secret-key-bench-secret-key';

async function seed(url: string): Promise<string> {
  const handle = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    await runMigrations(handle);
    await installAndSeed(handle, SITE);
    const { token } = await mintCredential(handle.db, { kind: 'api_key', name: 'bench', siteId: SITE, scopes: ['helpdesk-read'] });
    await replaceDesiredSettings(handle.db, SITE, { HELPDESK_SUPPORT_ADDRESS: 'support@bench.test', HELPDESK_INBOUND_SECRET: INBOUND_SECRET }, SECRET_KEY);
    await applyDesiredSettings(handle.db, SITE);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const started = performance.now();
      const statuses = `(array['new','open','pending','on_hold','solved','closed'])[1 + n % 6]`;
      const opened = `now() - ((n % ${DAYS * 24 * 60}) || ' minutes')::interval`;
      await client.query(`insert into helpdesk_contacts (id, site_id, email, name) select 'c' || n, $1, 'customer' || n || '@example.test', 'Customer ' || n from generate_series(1, ${TICKETS / 10}) n`, [SITE]);
      await client.query(
        `insert into helpdesk_tickets (id, site_id, number, subject, status, priority, requester_id, channel, search_text, created_at, updated_at, solved_at)
         select 't' || n, $1, n, 'Ticket ' || n, ${statuses}, (array['low','normal','high','urgent'])[1 + n % 4], 'c' || (1 + n % ${TICKETS / 10}), 'email',
                'Ticket ' || n, ${opened}, ${opened} + interval '1 hour', case when n % 6 = 4 then ${opened} + interval '2 hours' end
         from generate_series(1, ${TICKETS}) n`,
        [SITE],
      );
      await client.query(`insert into helpdesk_counters (site_id, last_number) values ($1, ${TICKETS})`, [SITE]);
      await client.query(
        `insert into helpdesk_entries (id, site_id, ticket_id, author_kind, body_source, body_html, body_text, created_at)
         select 'e' || n || '-' || k, $1, 't' || n, case when k % 2 = 0 then 'agent' else 'requester' end, 'Message ' || k, '<p>Message ' || k || '</p>', 'Message ' || k,
                ${opened} + (k || ' minutes')::interval
         from generate_series(1, ${TICKETS}) n, generate_series(1, ${ENTRIES_PER_TICKET}) k`,
        [SITE],
      );
      await client.query(
        `insert into helpdesk_history (site_id, ticket_id, actor_kind, event, to_value, created_at)
         select $1, 't' || n, 'system', 'created', jsonb_build_object('number', n), ${opened} from generate_series(1, ${TICKETS}) n
         union all
         select $1, 't' || n, case when k = 1 then 'requester' else 'api_key' end, 'reply', null, ${opened} + (k || ' minutes')::interval from generate_series(1, ${TICKETS}) n, generate_series(1, 2) k
         union all
         select $1, 't' || n, 'api_key', 'status', '"solved"'::jsonb, ${opened} + interval '2 hours' from generate_series(1, ${TICKETS}) n where n % 6 = 4`,
        [SITE],
      );
      await client.query('vacuum analyze');
      console.log(`  seeded ${TICKETS} tickets and ${TICKETS * ENTRIES_PER_TICKET} entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } finally {
      await client.end();
    }
    return token;
  } finally {
    await handle.close();
  }
}

function message(n: number): string {
  return [`From: Sender ${n} <sender${n}@customer.example>`, 'To: support@bench.test', `Subject: Question ${n}`, `Message-ID: <bench-${n}-${Date.now()}@customer.example>`, '', `Body of question ${n}.`, ''].join('\r\n');
}

/** Sends `count` messages from `CONNECTIONS` concurrent senders; answers messages per second. */
async function inboundRate(port: number, count: number, offset: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        const n = offset + next++;
        const answer = await request({ port, path: '/api/helpdesk/v1/inbound-email', method: 'POST', headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${INBOUND_SECRET}` }, body: message(n) });
        if (answer.status !== 202) throw new Error(`inbound: ${answer.status} ${answer.body.toString().slice(0, 300)}`);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function run(url: string): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'blume-bench-helpdesk-'));
  let server: BlumeServer | undefined;
  let pool: pg.Pool | undefined;
  try {
    console.log(`Help desk on PostgreSQL: ${TICKETS} tickets, ${TICKETS * ENTRIES_PER_TICKET} entries, ${CONNECTIONS} concurrent clients, ${SECONDS} s per run`);
    console.log(machineLine());
    const key = await seed(url);
    const env = { DATABASE_URL: url, SECRET_KEY, BLUME_DATA_DIR: path.join(work, 'data'), BLUME_LOG_LEVEL: 'warn', BLUME_INSTANCE_ID: SITE, BLUME_RATE_API_PER_MINUTE: '1000000' };
    server = await startServer(env, path.join(work, 'blume.log'), ['--single']);
    const headers = { authorization: `Bearer ${key}` };
    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    const listPath = '/api/helpdesk/v1/tickets?status=open&sort=-updated_at&page=2&page_size=25';
    const reportPath = `/api/helpdesk/v1/reports/tickets?from=${from}&to=${to}&interval=week`;
    for (const p of [listPath, reportPath]) {
      const check = await request({ port: server.port, path: p, headers });
      if (check.status !== 200) throw new Error(`${p}: ${check.status} ${check.body.toString().slice(0, 300)}`);
    }

    const listSql = `select * from helpdesk_tickets where site_id = $1 and status = 'open' order by updated_at desc, id desc limit 25 offset 25`;
    const countSql = `select count(*) from helpdesk_tickets where site_id = $1 and status = 'open'`;
    const reportSql = `select to_char(date_trunc('week', created_at at time zone 'UTC'), 'YYYY-MM-DD') as period,
        count(*) filter (where event = 'created') as created, count(*) filter (where event = 'status' and to_value = '"solved"'::jsonb) as solved,
        count(*) filter (where event = 'reply' and actor_kind <> 'requester') as agent_replies
      from helpdesk_history where site_id = $1 and created_at >= $2::timestamptz and created_at < $3::timestamptz + interval '1 day' group by 1 order by 1`;
    pool = new pg.Pool({ connectionString: url, max: CONNECTIONS });
    const sqlList = (client: pg.PoolClient) => Promise.all([client.query({ name: 'list', text: listSql, values: [SITE] }), client.query({ name: 'count', text: countSql, values: [SITE] })]).then(() => undefined);
    const sqlReport = (client: pg.PoolClient) => client.query({ name: 'report', text: reportSql, values: [SITE, `${from}T00:00:00Z`, `${to}T00:00:00Z`] }).then(() => undefined);

    console.log('');
    const ratios: string[] = [];
    for (const pair of [
      { label: 'ticket list: open, page 2 of 25', path: listPath, sql: sqlList, target: TARGET_LIST_P99_MS },
      { label: 'tickets report, 90 days by week', path: reportPath, sql: sqlReport, target: TARGET_REPORT_P99_MS },
    ]) {
      const base = `http://127.0.0.1:${server.port}`;
      runWrk(`${base}${pair.path}`, { connections: CONNECTIONS, threads: 2, seconds: 2, headers });
      const blume = runWrk(`${base}${pair.path}`, { connections: CONNECTIONS, threads: 2, seconds: SECONDS, headers });
      if (blume.non2xx > 0) throw new Error(`${pair.label}: ${blume.non2xx} non-2xx answers; no measurement`);
      await loadSql(pool, CONNECTIONS, 2, pair.sql);
      const bare = await loadSql(pool, CONNECTIONS, SECONDS, pair.sql);
      console.log(latencyRow(`Blume ${pair.label}`, blume, pair.target));
      console.log(latencyRow(`pg    ${pair.label}`, bare));
      ratios.push(`  ${pair.label}: p99 ratio Blume / bare SQL ${(blume.p99Ms / bare.p99Ms).toFixed(2)}x`);
    }

    // Inbound mail: parsed, verified, threaded and filed by Blume, against inserting what it files.
    await inboundRate(server.port, 100, 0);
    const blumeRate = await inboundRate(server.port, INBOUND_MESSAGES, 100);
    let n = 0;
    const inserts = async (client: pg.PoolClient): Promise<void> => {
      const id = `bare-${n++}`;
      await client.query('begin');
      await client.query(`insert into helpdesk_tickets (id, site_id, number, subject, requester_id, channel) values ($1, $2, ${TICKETS * 2} + $3, 'Question', 'c1', 'email')`, [id, SITE, n]);
      await client.query(`insert into helpdesk_entries (id, site_id, ticket_id, author_kind, body_source, body_html, body_text, message_id) values ($1, $2, $1, 'requester', 'Body', '<p>Body</p>', 'Body', $1)`, [id, SITE]);
      await client.query(`insert into helpdesk_history (site_id, ticket_id, actor_kind, event) values ($1, $2, 'requester', 'created')`, [SITE, id]);
      await client.query('commit');
    };
    const bareInserts = await loadSql(pool, CONNECTIONS, SECONDS, inserts);
    console.log(`  Blume inbound raw MIME                    ${blumeRate.toFixed(0).padStart(7)} msgs/s  (target >= ${TARGET_INBOUND_PER_S}: ${blumeRate >= TARGET_INBOUND_PER_S ? 'met' : 'MISSED'})`);
    console.log(`  pg    the same rows, one transaction each  ${bareInserts.requestsPerSecond.toFixed(0).padStart(7)} msgs/s`);
    ratios.push(`  inbound: Blume / bare SQL inserts ${(blumeRate / bareInserts.requestsPerSecond).toFixed(2)}x of the rate`);
    console.log('');
    for (const line of ratios) console.log(line);
  } finally {
    await pool?.end();
    if (server) await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

await withFreshDatabase('blume_bench_helpdesk', run);
