// Health endpoints of every node, on every host: liveness, deep dependency check, readiness.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { migrationStatus } from '../db/migrate.js';

const Check = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('fail')]),
  error: Type.Optional(Type.String()),
});
const HealthOut = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('fail')]),
  checks: Type.Optional(Type.Record(Type.String(), Check)),
});

type CheckResult = { status: 'ok' | 'fail'; error?: string };

async function runCheck(timeoutMs: number, fn: () => Promise<void>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'ok' };
  } catch (error) {
    return { status: 'fail', error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export async function healthPlugin(app: FastifyInstance): Promise<void> {
  const { database, cache, blobs } = app.deps;
  const noStore = { 'cache-control': 'no-store' };

  app.get('/up/', { schema: { hide: true, response: { 200: HealthOut } } }, async (_request, reply) =>
    reply.headers(noStore).send({ status: 'ok' }),
  );

  app.get(
    '/up/databases',
    { schema: { hide: true, response: { 200: HealthOut, 503: HealthOut } } },
    async (_request, reply) => {
      // For load balancers: a node without its database or blob store cannot serve and fails the check.
      // Without Redis it still serves (per-node rate limits, database reads; decision 0070), so a
      // failed cache only makes it "degraded": taking every node out for a shared Redis would be worse.
      // So do the node's conditions (decision 0113): Redis not answering, its pub/sub heartbeat not
      // received back, invalidations it knows it missed.
      const [db, blobStore, cacheCheck] = await Promise.all([
        runCheck(3000, database.ping),
        runCheck(3000, blobs.ping),
        runCheck(3000, cache.cache.ping),
      ]);
      const conditions = cache.pubsub.conditions.checks();
      const ok = db.status === 'ok' && blobStore.status === 'ok';
      const degraded = cacheCheck.status !== 'ok' || Object.keys(conditions).length > 0;
      return reply
        .code(ok ? 200 : 503)
        .headers(noStore)
        .send({
          status: ok ? (degraded ? 'degraded' : 'ok') : 'fail',
          checks: { database: db, blob_store: blobStore, cache: cacheCheck, ...conditions },
        });
    },
  );

  app.get(
    '/up/ready',
    { schema: { hide: true, response: { 200: HealthOut, 503: HealthOut } } },
    async (_request, reply) => {
      const migrations = await runCheck(3000, async () => {
        const status = await migrationStatus(database);
        if (status.pending > 0) throw new Error(`${status.pending} migration(s) pending: run \`blume db upgrade\``);
      });
      const ok = migrations.status === 'ok';
      return reply
        .code(ok ? 200 : 503)
        .headers(noStore)
        .send({ status: ok ? 'ok' : 'fail', checks: { migrations } });
    },
  );
}
