// 1,000 promote and rollback calls, interleaved from two app nodes on one PostgreSQL database and
// one Redis (issue #20), half of them conditioned on the live release with If-Match. Afterwards the
// promotion log must be one consistent chain: each promote names the head before it, each rollback
// returns to the release before the head, the aliases point at the log's head, every answered call
// is counted once in the pointer epoch and no refused call left a trace; and both nodes serve the
// final live release.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, PORTAL_HOST, signIn, type TestApp } from '../helpers/app.js';
import { siteArchive } from '../helpers/archives.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { createStaticSite, deployRelease, edge } from '../helpers/deploy.js';
import { findAliases, readPointerEpoch } from '../../src/deploy/service.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { chainFrom, deploymentProblems, promotionLog, type LogRow } from './invariants.js';

const ready = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const CALLS = 1000;
/** Clients per node, each waiting for its answer before its next call. */
const CLIENTS_PER_NODE = 4;
const EDITIONS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

interface Call {
  action: 'promote' | 'rollback';
  target?: string;
  ifMatch?: string;
  status: number;
  code?: string;
  live?: string | null;
}

describe(
  '1,000 interleaved promotes and rollbacks on two nodes [postgres, redis]',
  { skip: ready ? false : 'needs TEST_DATABASE_URL and TEST_REDIS_URL' },
  () => {
    let shared: TestDatabase;
    let dataDir: string;
    let a: TestApp;
    let b: TestApp;
    let token: string;
    const releases: string[] = [];

    before(async () => {
      shared = await createTestDatabase('postgres');
      const cachePrefix = `blume-test-${randomAlnum(8)}:`;
      dataDir = await mkdtemp(path.join(tmpdir(), 'blume-interleave-'));
      // One deploy token makes every call: the per-credential API limit is not what this measures.
      const env = { BLUME_DATA_DIR: dataDir, BLUME_RATE_API_PER_MINUTE: '100000' };
      a = await buildTestApp({ database: 'postgres', sharedDatabase: shared, cache: 'redis', cachePrefix, env });
      b = await buildTestApp({ database: 'postgres', sharedDatabase: shared, cache: 'redis', cachePrefix, env });
      const alice = await signIn(a.app, 'alice');
      token = await createStaticSite(a.app, alice, 'news');
      for (const edition of EDITIONS)
        releases.push(await deployRelease(a.app, token, 'news', await siteArchive({ 'index.html': edition })));
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await shared?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it(
      'keeps the promotion log one chain, counts every answered call once and serves its head on both nodes',
      { timeout: 300_000 },
      async () => {
        const { db } = shared.handle;
        const epochBefore = await readPointerEpoch(db);
        const calls: Call[] = [];
        let issued = 0;

        /** One client: promotes or rolls back, remembering the live release it last saw for If-Match. */
        const client = async (node: TestApp, seed: number): Promise<void> => {
          let seen: string | null = null;
          let state = seed;
          const random = (): number => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
          while (issued < CALLS) {
            issued++;
            const rollback = random() < 0.35;
            const target = releases[Math.floor(random() * releases.length)]!;
            const ifMatch: string | undefined = random() < 0.5 ? `"${seen ?? 'none'}"` : undefined;
            const answer: LightMyRequestResponse = await node.app.inject({
              method: 'POST',
              url: `/api/deploy/news/${rollback ? 'rollback' : 'promote'}`,
              headers: {
                host: PORTAL_HOST,
                authorization: `Bearer ${token}`,
                ...(ifMatch ? { 'if-match': ifMatch } : {}),
              },
              ...(rollback ? {} : { payload: { release: target } }),
            });
            const body = answer.json() as {
              code?: string;
              aliases?: { live: string | null };
              live_release?: string | null;
            };
            const live: string | null | undefined = answer.statusCode === 200 ? body.aliases!.live : body.live_release;
            calls.push({
              action: rollback ? 'rollback' : 'promote',
              ...(rollback ? {} : { target }),
              ifMatch,
              status: answer.statusCode,
              code: body.code,
              live,
            });
            if (live !== undefined) seen = live;
          }
        };
        const began = Date.now();
        await Promise.all(
          [a, b].flatMap((node, n) =>
            Array.from({ length: CLIENTS_PER_NODE }, (_, i) => client(node, 7919 * (n * CLIENTS_PER_NODE + i + 1))),
          ),
        );
        const elapsed = Date.now() - began;

        // Every call had one of the answers the API documents for it, nothing else.
        const unexpected = calls.filter(
          (call) =>
            !(
              call.status === 200 ||
              (call.status === 412 && call.ifMatch && call.code === 'live_release_changed') ||
              (call.status === 409 && call.action === 'rollback' && call.code === 'no_previous_release')
            ),
        );
        assert.deepEqual(unexpected, []);
        const answered = calls.filter((call) => call.status === 200);
        for (const call of answered)
          if (call.action === 'promote')
            assert.equal(call.live, call.target, 'a promote answers with its release live');

        // The log replays as one chain, in id (= commit) order.
        const log = await promotionLog(db, 'news');
        let head: number | null = null;
        const byId = new Map(log.map((row) => [row.id, row]));
        for (const row of log) {
          if (row.action === 'promote') {
            assert.equal(row.previousId, head, `promote ${row.id} names the head before it`);
          } else {
            const current: LogRow = byId.get(head!)!;
            const previous: LogRow = byId.get(current.previousId!)!;
            assert.equal(
              row.releaseId,
              previous.releaseId,
              `rollback ${row.id} returns to the release before the head`,
            );
            assert.equal(row.previousId, previous.previousId, `rollback ${row.id} continues the chain below it`);
          }
          head = row.id;
        }
        const aliases = (await findAliases(db, 'news'))!;
        assert.equal(aliases.livePromotionId, head, 'the aliases name the log head');
        assert.equal(aliases.liveReleaseId, chainFrom(log, head)[0], 'the live release is the head’s');
        assert.deepEqual(await deploymentProblems(db, path.join(dataDir, 'blobs')), []);

        // Nothing lost, nothing doubled: each answered call moved the epoch once, refused calls never;
        // each answered rollback wrote one row, each promote at most one (none when its release was live).
        assert.equal(
          (await readPointerEpoch(db)) - epochBefore,
          answered.length,
          'the pointer epoch counts every answered call once',
        );
        assert.equal(
          log.filter((row) => row.action === 'rollback').length,
          answered.filter((call) => call.action === 'rollback').length,
        );
        const promoted = new Map<string, number>();
        for (const call of answered)
          if (call.action === 'promote') promoted.set(call.target!, (promoted.get(call.target!) ?? 0) + 1);
        for (const row of log.filter((entry) => entry.action === 'promote')) {
          const left = promoted.get(row.releaseId) ?? 0;
          assert.ok(left > 0, `promote row ${row.id} of ${row.releaseId} matches an answered promote`);
          promoted.set(row.releaseId, left - 1);
        }

        // Both nodes serve the head's release on their next request.
        const edition = EDITIONS[releases.indexOf(aliases.liveReleaseId!)];
        assert.equal((await edge(a.app, 'news.blume.test', '/')).body, edition);
        assert.equal((await edge(b.app, 'news.blume.test', '/')).body, edition);
        const statuses = new Map<string, number>();
        for (const call of calls)
          statuses.set(`${call.action} ${call.status}`, (statuses.get(`${call.action} ${call.status}`) ?? 0) + 1);
        console.log(
          `# ${calls.length} calls in ${elapsed} ms (${[...statuses].map(([key, n]) => `${key}: ${n}`).join(', ')}); ${log.length} log rows`,
        );
      },
    );
  },
);
