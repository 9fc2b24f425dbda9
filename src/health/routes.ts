// Health endpoints of every node, on every host: liveness, deep dependency check, readiness.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { migrationStatus } from '../db/migrate.js';

const Check = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('fail')]), error: Type.Optional(Type.String()) });
const HealthOut = Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('fail')]), checks: Type.Optional(Type.Record(Type.String(), Check)) });

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

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const { database, cache } = app.deps;
  const noStore = { 'cache-control': 'no-store' };

  app.get('/up/', { schema: { hide: true, response: { 200: HealthOut } } }, async (_request, reply) => reply.headers(noStore).send({ status: 'ok' }));

  app.get('/up/databases', { schema: { hide: true, response: { 200: HealthOut, 503: HealthOut } } }, async (_request, reply) => {
    const [db, cacheCheck] = await Promise.all([runCheck(3000, database.ping), runCheck(3000, cache.cache.ping)]);
    const ok = db.status === 'ok' && cacheCheck.status === 'ok';
    return reply
      .code(ok ? 200 : 503)
      .headers(noStore)
      .send({ status: ok ? 'ok' : 'fail', checks: { database: db, cache: cacheCheck } });
  });

  app.get('/up/ready', { schema: { hide: true, response: { 200: HealthOut, 503: HealthOut } } }, async (_request, reply) => {
    const migrations = await runCheck(3000, async () => {
      const status = await migrationStatus(database);
      if (status.pending > 0) throw new Error(`${status.pending} migration(s) pending: run \`blume db upgrade\``);
    });
    const ok = migrations.status === 'ok';
    return reply
      .code(ok ? 200 : 503)
      .headers(noStore)
      .send({ status: ok ? 'ok' : 'fail', checks: { migrations } });
  });
}
