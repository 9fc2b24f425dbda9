// Webhooks out: per-site subscriptions to `entry.published`, `entry.updated` and `entry.deleted`.
// The entry service writes a delivery and enqueues a `cms.webhook` job in the transaction of the
// write that causes it; the dispatcher POSTs it signed with HMAC-SHA256 and retries with back-off
// on the one job runner (src/jobs/). Deliveries stay as the log admins read. Targets must be public
// addresses unless the instance allows private ones (webhook-targets.ts).
import { createHmac, randomBytes } from 'node:crypto';
import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { enqueueJob } from '../jobs/queue.js';
import { JobWorker, type JobKind } from '../jobs/worker.js';
import { newId } from '../lib/ids.js';
import { openSecret, sealSecret } from '../lib/secrets.js';
import { checkWebhookTarget, postWebhook } from './webhook-targets.js';
import {
  cmsWebhookDeliveries,
  cmsWebhooks,
  type WebhookDeliveryRow,
  type WebhookEvent,
  type WebhookRow,
} from './tables.js';

const WEBHOOK_JOB = 'cms.webhook';
const MAX_WEBHOOK_ATTEMPTS = 6;
const SECRET_PURPOSE = 'cms-webhook';
const SEND_TIMEOUT_MS = 10_000;
const LEASE_MS = 30_000;
const POLL_MS = 5_000;

interface WebhookInput {
  url: string;
  events: WebhookEvent[];
}

/** Subscribes a URL, refused (422) when its host resolves to a non-public address and those are not allowed. */
export async function createWebhook(
  db: Executor,
  siteId: string,
  secretKey: string,
  input: WebhookInput,
  allowPrivate: boolean,
): Promise<{ row: WebhookRow; secret: string }> {
  await checkWebhookTarget(input.url, allowPrivate);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const [row] = await db
    .insert(cmsWebhooks)
    .values({
      id: newId(),
      siteId,
      url: input.url,
      events: input.events,
      secret: sealSecret(secret, secretKey, SECRET_PURPOSE),
    })
    .returning();
  return { row: row!, secret };
}

export async function listWebhooks(db: Executor, siteId: string): Promise<WebhookRow[]> {
  return db
    .select()
    .from(cmsWebhooks)
    .where(eq(cmsWebhooks.siteId, siteId))
    .orderBy(cmsWebhooks.createdAt, cmsWebhooks.id);
}

async function findWebhook(db: Executor, siteId: string, id: string): Promise<WebhookRow> {
  const [row] = await db
    .select()
    .from(cmsWebhooks)
    .where(and(eq(cmsWebhooks.siteId, siteId), eq(cmsWebhooks.id, id)));
  if (!row) throw new AppError('webhook_not_found', `No webhook "${id}".`);
  return row;
}

/** Deleting a subscription drops its deliveries; their pending jobs find nothing and are dropped. */
export async function deleteWebhook(db: Executor, siteId: string, id: string): Promise<void> {
  await db.delete(cmsWebhooks).where(eq(cmsWebhooks.id, (await findWebhook(db, siteId, id)).id));
}

export async function listDeliveries(
  db: Executor,
  siteId: string,
  webhookId: string,
  page: Page,
): Promise<{ rows: WebhookDeliveryRow[]; total: number }> {
  const hook = await findWebhook(db, siteId, webhookId);
  const where = eq(cmsWebhookDeliveries.webhookId, hook.id);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(cmsWebhookDeliveries)
      .where(where)
      .orderBy(desc(cmsWebhookDeliveries.createdAt), desc(cmsWebhookDeliveries.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(cmsWebhookDeliveries).where(where),
  ]);
  return { rows, total: total!.n };
}

/**
 * Queues one delivery per subscription of the site to `event`. Call it in the transaction of the
 * entry write; `delayMs` holds a scheduled publish back until the entry goes live.
 */
export async function emitEntryEvent(
  tx: Executor,
  siteId: string,
  event: WebhookEvent,
  body: Record<string, unknown>,
  delayMs = 0,
): Promise<number> {
  const hooks = await tx
    .select({ id: cmsWebhooks.id })
    .from(cmsWebhooks)
    .where(and(eq(cmsWebhooks.siteId, siteId), sql`${event} = any(${cmsWebhooks.events})`));
  for (const hook of hooks) {
    const id = newId();
    const payload = { id, event, created_at: new Date(Date.now() + delayMs).toISOString(), ...body };
    await tx.insert(cmsWebhookDeliveries).values({ id, siteId, webhookId: hook.id, event, payload });
    await enqueueJob(tx, WEBHOOK_JOB, { deliveryId: id }, { siteId, maxAttempts: MAX_WEBHOOK_ATTEMPTS, delayMs });
  }
  return hooks.length;
}

/** `X-Blume-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, as receivers verify it. */
function signDelivery(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Waits after failed attempt n: 30 s, 2 min, 8 min, 32 min, ~2 h. */
function retryDelayMs(attempt: number): number {
  return Math.min(30 * 4 ** Math.max(attempt - 1, 0), 6 * 3600) * 1000;
}

interface Delivery {
  delivery: WebhookDeliveryRow;
  hook: WebhookRow;
}

/** Sends queued deliveries on this node, one kind of the job runner. */
export class WebhookDispatcher {
  private readonly worker: JobWorker<Delivery>;
  /** BLUME_WEBHOOKS_ALLOW_PRIVATE: whether deliveries may reach private addresses. */
  private readonly allowPrivate: boolean;

  constructor(
    private readonly db: Executor,
    private readonly secretKey: string,
    log: FastifyBaseLogger,
    options: {
      embeddedDatabase?: boolean;
      retryDelayMs?: (attempt: number) => number;
      allowPrivateTargets?: boolean;
    } = {},
  ) {
    this.allowPrivate = options.allowPrivateTargets ?? false;
    const kind: JobKind<Delivery> = {
      name: WEBHOOK_JOB,
      concurrency: () => 2,
      leaseMs: LEASE_MS,
      pollMs: POLL_MS,
      retryDelayMs: options.retryDelayMs ?? retryDelayMs,
      take: async (tx, job) => {
        const { deliveryId } = job.payload as { deliveryId: string };
        const [row] = await tx
          .select({ delivery: cmsWebhookDeliveries, hook: cmsWebhooks })
          .from(cmsWebhookDeliveries)
          .innerJoin(cmsWebhooks, eq(cmsWebhooks.id, cmsWebhookDeliveries.webhookId))
          .where(eq(cmsWebhookDeliveries.id, deliveryId));
        return row;
      },
      run: (subject, job, run) => this.send(subject, job.attempts, run.signal),
      canceled: () => new Error('the delivery was canceled'),
    };
    this.worker = new JobWorker(db, kind, { logger: log, embeddedDatabase: options.embeddedDatabase ?? false });
  }

  private async send({ delivery, hook }: Delivery, attempt: number, signal: AbortSignal): Promise<void> {
    const body = JSON.stringify(delivery.payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const secret = openSecret(hook.secret, this.secretKey, SECRET_PURPOSE);
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await postWebhook(hook.url, {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Blume-Webhooks/1',
          'x-blume-event': delivery.event,
          'x-blume-delivery': delivery.id,
          'x-blume-signature': signDelivery(secret, timestamp, body),
        },
        body,
        signal: AbortSignal.any([signal, AbortSignal.timeout(SEND_TIMEOUT_MS)]),
        allowPrivate: this.allowPrivate,
      });
      if (status < 200 || status > 299) error = `the receiver answered ${status}`;
    } catch (caught) {
      error = `the receiver could not be reached: ${(caught as Error).message}`;
    }
    const failedForGood = error !== null && attempt >= MAX_WEBHOOK_ATTEMPTS;
    await this.db
      .update(cmsWebhookDeliveries)
      .set({
        attempts: attempt,
        lastStatus: status,
        lastError: error,
        status: error === null ? 'delivered' : failedForGood ? 'failed' : 'pending',
        ...(error === null ? { deliveredAt: new Date() } : {}),
      })
      .where(eq(cmsWebhookDeliveries.id, delivery.id));
    if (error !== null) throw new Error(error);
  }

  async start(): Promise<void> {
    await this.worker.start();
  }

  async stop(): Promise<void> {
    await this.worker.stop();
  }

  /** Sends what is due now (called after an entry write commits). */
  wake(): void {
    this.worker.wake();
  }

  /** Resolves when nothing is being sent (tests wait on it). */
  idle(): Promise<void> {
    return this.worker.idle();
  }
}
