// Connected repositories and their push webhooks (GitHub's format). The webhook secret is shown once
// at connection and kept sealed (lib/secrets.ts), since checking `X-Hub-Signature-256` needs it in
// plain text. A verified push queues a build: promotable for the connected branch, preview-only for
// any other; nothing is ever promoted automatically (DESIGN.md section 4).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { openSecret, sealSecret } from '../../lib/secrets.js';
import { normalizeEntryPath } from '../archive.js';
import { enqueueBuild } from '../builds/queue.js';
import { BRANCH_PATTERN, COMMIT_ID, REPOSITORY_PATTERN } from './fetch.js';
import { githubConnections, githubDeliveries, type GithubConnectionRow } from './tables.js';

const SECRET_PURPOSE = 'github-webhook-secret';
/** Deliveries are remembered this long; GitHub redelivers within days, not months. */
const DELIVERY_MEMORY_DAYS = 30;

interface ConnectionInput {
  repository: string;
  branch: string;
  path?: string | undefined;
  kind: 'markdown' | 'static';
}

/** The folder inside the repository as a clean relative path ('' for the root). */
function normalizeRepositoryPath(input: string | undefined): string {
  if (input === undefined) return '';
  try {
    return normalizeEntryPath(input.replace(/^\/+/, ''));
  } catch (error) {
    throw new AppError(
      'invalid_repository_path',
      error instanceof Error ? error.message.replace(/^The path/, 'The folder') : String(error),
    );
  }
}

const REPOSITORY = new RegExp(REPOSITORY_PATTERN);
const BRANCH = new RegExp(BRANCH_PATTERN);

/** Connects (or reconnects) the site's repository with a fresh webhook secret, answered once here. */
export async function connectRepository(
  db: Executor,
  secretKey: string,
  siteId: string,
  input: ConnectionInput,
): Promise<{ connection: GithubConnectionRow; secret: string }> {
  if (!REPOSITORY.test(input.repository))
    throw new AppError('validation_failed', `The repository must be written owner/name, not "${input.repository}".`);
  if (input.branch.length > 200 || !BRANCH.test(input.branch))
    throw new AppError('validation_failed', `"${input.branch}" is not a branch name git accepts.`);
  const secret = randomBytes(32).toString('hex');
  const values = {
    repository: input.repository,
    branch: input.branch,
    path: normalizeRepositoryPath(input.path),
    kind: input.kind,
    webhookSecret: sealSecret(secret, secretKey, SECRET_PURPOSE),
    updatedAt: new Date(),
  };
  const [connection] = await db
    .insert(githubConnections)
    .values({ siteId, ...values })
    .onConflictDoUpdate({ target: githubConnections.siteId, set: values })
    .returning();
  return { connection: connection!, secret };
}

export async function findConnection(db: Executor, siteId: string): Promise<GithubConnectionRow | undefined> {
  const [row] = await db.select().from(githubConnections).where(eq(githubConnections.siteId, siteId));
  return row;
}

export async function disconnectRepository(db: Executor, siteId: string): Promise<boolean> {
  const rows = await db
    .delete(githubConnections)
    .where(eq(githubConnections.siteId, siteId))
    .returning({ siteId: githubConnections.siteId });
  return rows.length > 0;
}

/** Checks `sha256=<hex>` against the HMAC of the raw body, in constant time. */
function verifySignature(secret: string, body: Buffer, header: string | undefined): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
}

interface WebhookRequest {
  event: string | undefined;
  delivery: string | undefined;
  signature: string | undefined;
  body: Buffer;
}

export type WebhookOutcome =
  | { status: 'pong' }
  | { status: 'ignored'; reason: string }
  | { status: 'duplicate'; buildId: string | null }
  | { status: 'queued'; buildId: string; promotable: boolean };

interface PushPayload {
  ref?: unknown;
  before?: unknown;
  after?: unknown;
  deleted?: unknown;
  repository?: { full_name?: unknown };
  pusher?: { name?: unknown };
}

function parsePayload(body: Buffer): PushPayload {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value === 'object' && value !== null) return value as PushPayload;
  } catch {
    // Reported below.
  }
  throw new AppError('malformed_json', 'The webhook body is not a JSON object.');
}

export async function handleWebhook(
  db: Database,
  secretKey: string,
  siteId: string,
  request: WebhookRequest,
): Promise<WebhookOutcome> {
  const connection = await findConnection(db, siteId);
  if (!connection) throw new AppError('github_not_connected', `Site "${siteId}" has no connected repository.`);
  if (
    !verifySignature(openSecret(connection.webhookSecret, secretKey, SECRET_PURPOSE), request.body, request.signature)
  ) {
    throw new AppError(
      'invalid_signature',
      'X-Hub-Signature-256 is missing or does not match the body signed with the webhook secret.',
      {},
      {
        'WWW-Authenticate': 'HMAC-SHA256 header="X-Hub-Signature-256"',
      },
    );
  }
  const payload = parsePayload(request.body);
  if (request.event === 'ping') return { status: 'pong' };
  if (request.event !== 'push')
    return { status: 'ignored', reason: `"${request.event ?? '(none)'}" events do not build; only push does` };

  const repository = typeof payload.repository?.full_name === 'string' ? payload.repository.full_name : '';
  if (repository.toLowerCase() !== connection.repository.toLowerCase()) {
    throw new AppError(
      'repository_not_connected',
      `The push is for "${repository}", but site "${siteId}" is connected to "${connection.repository}".`,
    );
  }
  const ref = typeof payload.ref === 'string' ? payload.ref : '';
  if (!ref.startsWith('refs/heads/')) return { status: 'ignored', reason: `"${ref}" is not a branch` };
  const commit = typeof payload.after === 'string' ? payload.after : '';
  if (payload.deleted === true || /^0+$/.test(commit)) return { status: 'ignored', reason: 'the branch was deleted' };
  if (!COMMIT_ID.test(commit)) throw new AppError('bad_request', 'The push names no commit in `after`.');
  const branch = ref.slice('refs/heads/'.length);
  const before = typeof payload.before === 'string' && COMMIT_ID.test(payload.before) ? payload.before : '';
  const delivery = request.delivery?.trim();
  if (!delivery || delivery.length > 200) throw new AppError('bad_request', 'X-GitHub-Delivery is missing.');

  // The delivery id is not signed, so a captured push replayed under a new id is recognised by what
  // its signed body says: the same ref moved from the same commit to the same commit.
  const push = { siteId, ref, beforeCommit: before, afterCommit: commit };
  return db.transaction(async (tx) => {
    const [fresh] = await tx
      .insert(githubDeliveries)
      .values({ deliveryId: delivery, ...push })
      .onConflictDoNothing()
      .returning();
    if (!fresh) {
      const [seen] = await tx
        .select()
        .from(githubDeliveries)
        .where(
          or(
            eq(githubDeliveries.deliveryId, delivery),
            and(
              eq(githubDeliveries.siteId, siteId),
              eq(githubDeliveries.ref, ref),
              eq(githubDeliveries.beforeCommit, before),
              eq(githubDeliveries.afterCommit, commit),
            ),
          ),
        )
        .limit(1);
      return { status: 'duplicate', buildId: seen?.buildId ?? null } as const;
    }
    const promotable = branch === connection.branch;
    const build = await enqueueBuild(tx, {
      siteId,
      trigger: 'push',
      kind: connection.kind,
      git: { repository: connection.repository, branch, commit },
      path: connection.path,
      promotable,
      requestedBy:
        typeof payload.pusher?.name === 'string' ? `push by "${payload.pusher.name.slice(0, 100)}"` : 'a push',
    });
    await tx.update(githubDeliveries).set({ buildId: build.id }).where(eq(githubDeliveries.deliveryId, delivery));
    await tx
      .delete(githubDeliveries)
      .where(lt(githubDeliveries.receivedAt, sql`now() - ${DELIVERY_MEMORY_DAYS} * interval '1 day'`));
    return { status: 'queued', buildId: build.id, promotable } as const;
  });
}
