// A load of 30 s (BLUME_RELIABILITY_LOAD_SECONDS; each fault comes twice, decision 0132) on two nodes
// sharing one PostgreSQL database, one Redis and one S3 server while faults come and go (issue #20;
// decisions 0069, 0070): node B reaches each dependency through a TCP proxy the test cuts (Redis
// dropped and restored, PostgreSQL cut briefly, the S3 server cut), and both nodes' pub/sub
// connections are killed now and then. Meanwhile node A promotes one release after the other, and
// readers on both nodes fetch the production site and the releases API. Every answer is right or an
// honest 503 with Retry-After: a page is the release live at some moment of the request (a promote
// that answered before the request began is never missed), the API's live release likewise.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';
import { testRedisUrl } from '../helpers/databases.js';
import { deployApi, edge } from '../helpers/deploy.js';
import { eventually } from '../helpers/eventually.js';
import { faultClusterSkip, startFaultCluster, type FaultCluster } from '../helpers/fault-cluster.js';

const LOAD_MS = Number(process.env.BLUME_RELIABILITY_LOAD_SECONDS ?? 30) * 1000;
const EDITIONS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

/** One answered promote: the release was made live somewhere between `start` and `end`. */
interface Promotion {
  release: string;
  start: number;
  end: number;
}

describe('load on two nodes with faults injected [postgres, redis, s3]', { skip: faultClusterSkip }, () => {
  let cluster: FaultCluster;
  let a: TestApp;
  let b: TestApp;
  let token: string;
  let prefix: string;
  let proxies: FaultCluster['proxies'];
  let releases: string[];

  before(async () => {
    // One deploy token makes every API call: the per-credential limit is not what this measures.
    cluster = await startFaultCluster({
      name: 'load',
      editions: EDITIONS,
      env: { BLUME_RATE_API_PER_MINUTE: '1000000' },
    });
    ({ a, b, token, prefix, proxies, releases } = cluster);
  });
  after(() => cluster?.close());

  /** Kills the pub/sub connections of both nodes (only theirs: other test files share this Redis). */
  async function killSubscribers(): Promise<void> {
    const admin = new Redis(testRedisUrl());
    try {
      const clients = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')).split('\n');
      for (const line of clients.filter((entry) => entry.includes(` name=${prefix}`))) {
        const id = /\bid=(\d+)\b/.exec(line)?.[1];
        if (id) await admin.call('CLIENT', 'KILL', 'ID', id);
      }
    } finally {
      admin.disconnect();
    }
  }

  it(
    'answers every request rightly or with an honest 503, 0 wrong answers',
    { timeout: LOAD_MS + 240_000 },
    async () => {
      const first = await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', { release: releases[0] });
      assert.equal(first.statusCode, 200, first.body);
      const history: Promotion[] = [{ release: releases[0]!, start: 0, end: performance.now() }];
      const wrong: string[] = [];
      const counts = {
        pages: 0,
        api: 0,
        unavailable: 0,
        promotes: 0,
        promotesRefused: 0,
        slowestPromoteMs: 0,
        faults: 0,
      };
      const deadline = performance.now() + LOAD_MS;
      const running = () => performance.now() < deadline;

      /** Releases that may rightly be live at some moment of [start, end]. */
      const allowed = (start: number, end: number): Set<string> => {
        const out = new Set<string>();
        history.forEach((promotion, i) => {
          const next = history[i + 1];
          // Sent before the request ended, and not replaced by a promote that answered before it began.
          if (promotion.start <= end && !(next && next.end <= start)) out.add(promotion.release);
        });
        return out;
      };
      const honest503 = (answer: LightMyRequestResponse): boolean =>
        answer.statusCode === 503 && Boolean(answer.headers['retry-after']);

      async function promoter(): Promise<void> {
        let n = 1;
        while (running()) {
          // In the history from the moment it is sent: the change may land before the answer.
          const promotion: Promotion = {
            release: releases[n++ % releases.length]!,
            start: performance.now(),
            end: Number.POSITIVE_INFINITY,
          };
          history.push(promotion);
          const answer = await deployApi(a.app, token, 'POST', '/api/deploy/news/promote', {
            release: promotion.release,
          });
          if (answer.statusCode === 200) {
            promotion.end = performance.now();
            counts.promotes++;
            counts.slowestPromoteMs = Math.max(counts.slowestPromoteMs, promotion.end - promotion.start);
          } else if (honest503(answer)) {
            // Node A's own dependencies are not cut; a refusal must still be honest, and the change may
            // have landed (the commit and the answer are not one step), so it stays possibly live.
            counts.promotesRefused++;
          } else {
            wrong.push(`promote answered ${answer.statusCode}: ${answer.body}`);
          }
          await sleep(150);
        }
      }

      async function pageReader(node: TestApp, name: string): Promise<void> {
        while (running()) {
          const start = performance.now();
          const answer = await edge(node.app, 'news.blume.test', '/');
          const end = performance.now();
          counts.pages++;
          if (answer.statusCode === 200) {
            const release = releases[EDITIONS.indexOf(answer.body)];
            if (!release || !allowed(start, end).has(release))
              wrong.push(
                `node ${name} served "${answer.body}" at ${start.toFixed(0)}-${end.toFixed(0)} ms; live then: ${[...allowed(start, end)].map((id) => EDITIONS[releases.indexOf(id)]).join(', ')}`,
              );
          } else if (honest503(answer) && /^text\/html/.test(String(answer.headers['content-type']))) {
            counts.unavailable++;
          } else {
            wrong.push(`node ${name} answered the page with ${answer.statusCode}: ${answer.body.slice(0, 200)}`);
          }
          await sleep(2);
        }
      }

      async function apiReader(node: TestApp, name: string): Promise<void> {
        while (running()) {
          const start = performance.now();
          const answer = await deployApi(node.app, token, 'GET', '/api/deploy/news/releases');
          const end = performance.now();
          counts.api++;
          if (answer.statusCode === 200) {
            const body = answer.json() as { releases: { id: string }[]; aliases: { live: string } };
            if (body.releases.length !== releases.length)
              wrong.push(`node ${name} listed ${body.releases.length} releases`);
            if (!allowed(start, end).has(body.aliases.live))
              wrong.push(`node ${name} said ${body.aliases.live} was live at ${start.toFixed(0)}-${end.toFixed(0)} ms`);
            if (answer.headers.etag !== `"${body.aliases.live}"`)
              wrong.push(`node ${name} sent ETag ${answer.headers.etag} with live ${body.aliases.live}`);
          } else if (
            honest503(answer) &&
            ['database_unavailable', 'blob_store_unavailable'].includes((answer.json() as { code: string }).code)
          ) {
            counts.unavailable++;
          } else {
            wrong.push(`node ${name} answered the API with ${answer.statusCode}: ${answer.body.slice(0, 200)}`);
          }
          await sleep(5);
        }
      }

      /** Cuts each dependency of node B in turn, and kills the subscribers, with calm spells between. */
      async function faults(): Promise<void> {
        const plan: Array<[string, () => Promise<void>, () => Promise<void>, number]> = [
          ['redis', () => proxies.redis.cut(), () => proxies.redis.restore(), 3000],
          ['pubsub', killSubscribers, async () => {}, 0],
          ['postgres', () => proxies.pg.cut(), () => proxies.pg.restore(), 1500],
          ['s3', () => proxies.s3.cut(), () => proxies.s3.restore(), 2000],
        ];
        for (let i = 0; running(); i++) {
          const [, cut, restore, holdMs] = plan[i % plan.length]!;
          await cut();
          counts.faults++;
          await sleep(Math.min(holdMs, Math.max(0, deadline - performance.now())));
          await restore();
          await sleep(Math.min(1500, Math.max(0, deadline - performance.now())));
        }
      }

      await Promise.all([
        promoter(),
        faults(),
        pageReader(a, 'A'),
        pageReader(a, 'A'),
        pageReader(b, 'B'),
        pageReader(b, 'B'),
        apiReader(a, 'A'),
        apiReader(b, 'B'),
      ]);
      console.log(
        `# ${LOAD_MS / 1000} s: ${counts.pages} pages, ${counts.api} API reads, ${counts.unavailable} honest 503s, ${counts.promotes} promotes (${counts.promotesRefused} refused, slowest ${counts.slowestPromoteMs.toFixed(0)} ms), ${counts.faults} faults; ${wrong.length} wrong answers`,
      );
      assert.deepEqual(wrong.slice(0, 20), []);
      assert.ok(counts.promotes > 10 && counts.faults >= 8, 'the load promoted and every fault came twice');

      // All restored: both nodes serve the last release again.
      const last = history.at(-1)!.release;
      for (const node of [a, b])
        await eventually('both nodes to serve the last release', async () =>
          (await edge(node.app, 'news.blume.test', '/')).body === EDITIONS[releases.indexOf(last)] ? true : undefined,
        );
    },
  );
});
