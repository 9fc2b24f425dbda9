// Workspaces for billing systems: a workspace is a site (its id is the site id) with its owner
// account, plan and status. Provisioning, plan changes, suspension and cancellation write the site
// row; callers then tell every node's SiteDirectory (decision 0062).
import { createHash, randomBytes } from 'node:crypto';
import { and, count, desc, eq, getTableColumns } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { enqueueJob } from '../jobs/queue.js';
import { sendInvitation } from '../core/accounts/password-mail.js';
import { createAccount, findUserById, findUserByLogin } from '../core/accounts/service.js';
import { users, type UserRow } from '../core/accounts/tables.js';
import { credentials } from '../core/credentials/tables.js';
import { DEFAULT_FEATURES, loadFeaturePlans } from '../core/plans/service.js';
import { createSite, findSite, updateSite, type SiteChange } from '../core/sites/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import { auditLog, purchaseIdempotency, type AuditRow } from './tables.js';

const PLANS = ['free', 'pro', 'business'] as const;
export const PURGE_JOB = 'purchase.purge';

export interface Workspace {
  site: SiteRow;
  ownerEmail: string | null;
}

interface PlanInfo {
  id: SiteRow['plan'];
  features: Array<{ feature: string; description: string }>;
}

/** Each plan with the features the current plan matrix gives it. */
export async function listPlans(db: Executor): Promise<PlanInfo[]> {
  const matrix = await loadFeaturePlans(db);
  return PLANS.map((plan) => ({
    id: plan,
    features: DEFAULT_FEATURES.filter((f) => matrix.get(f.feature)!.includes(plan)).map((f) => ({
      feature: f.feature,
      description: f.description,
    })),
  }));
}

function checkPlan(plan: string): SiteRow['plan'] {
  if (!(PLANS as readonly string[]).includes(plan))
    throw new AppError('unknown_plan', `No plan "${plan}"; the plans are ${PLANS.join(', ')}.`, { plans: PLANS });
  return plan as SiteRow['plan'];
}

interface NewWorkspace {
  site_id: string;
  kind: SiteRow['kind'];
  plan: string;
  owner_email: string;
  owner_name?: string | undefined;
}

/** A free username from the owner's name or e-mail address: its letters and digits, numbered on a clash. */
async function freeUsername(db: Executor, input: NewWorkspace): Promise<string> {
  const base =
    (input.owner_name ?? input.owner_email.split('@')[0]!)
      .replace(/[^A-Za-z0-9_.-]+/g, '-')
      .replace(/^[^A-Za-z0-9_]+/, '')
      .slice(0, 32) || 'owner';
  const stem = base.length < 2 ? `${base}-owner` : base;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stem : `${stem}-${n}`;
    if (!(await findUserByLogin(db, candidate))) return candidate;
  }
}

interface ProvisionedWorkspace extends Workspace {
  owner: UserRow;
  newOwner: boolean;
}

/**
 * Creates the site and, when no account has the owner's address, the owner's account with an
 * unusable password. Answers the workspace and whether the account is new. Call inside a transaction.
 */
export async function provisionWorkspace(db: Executor, input: NewWorkspace): Promise<ProvisionedWorkspace> {
  const plan = checkPlan(input.plan);
  let owner: UserRow | undefined = await findUserByLogin(db, input.owner_email);
  const newOwner = !owner || owner.email.toLowerCase() !== input.owner_email.toLowerCase();
  if (newOwner) {
    // Nobody knows this password; the owner sets one through the link in the invitation.
    const unusable = randomBytes(32).toString('base64url');
    owner = await createAccount(db, {
      username: await freeUsername(db, input),
      email: input.owner_email,
      password: unusable,
    });
  }
  const site = await createSite(db, owner!, { id: input.site_id, kind: input.kind, plan });
  return { site, ownerEmail: owner!.email, owner: owner!, newOwner };
}

/** What became of the owner's invitation: the `invitation` field of a provisioned workspace. */
type Invitation = 'sent' | 'not_sent_mail_disabled' | 'not_needed';

interface InvitationMail {
  /** Whether this server sends mail at all. */
  enabled: boolean;
  /** BLUME_PUBLIC_URL's origin, where the link leads. */
  portalOrigin: string;
  /** The site's production origin, named in the mail. */
  siteUrl: string;
}

/**
 * Invites a new owner to choose a password, in the provisioning transaction (the outbox sends after
 * commit). An existing account keeps its password and gets no mail.
 */
export async function inviteOwner(
  db: Executor,
  provisioned: ProvisionedWorkspace,
  mail: InvitationMail,
): Promise<Invitation> {
  if (!provisioned.newOwner) return 'not_needed';
  if (!mail.enabled) return 'not_sent_mail_disabled';
  await sendInvitation(db, mail.portalOrigin, provisioned.owner, { siteId: provisioned.site.id, url: mail.siteUrl });
  return 'sent';
}

/** The workspace with this id; 404 `workspace_not_found` when there is none. */
export async function getWorkspace(db: Executor, id: string): Promise<Workspace> {
  const site = await findSite(db, id);
  if (!site) throw new AppError('workspace_not_found', `No workspace "${id}".`);
  return { site, ownerEmail: site.ownerId ? ((await findUserById(db, site.ownerId))?.email ?? null) : null };
}

/** Changes a live workspace; a canceled one takes no changes (409 `workspace_canceled`). */
async function changeWorkspace(db: Executor, id: string, change: SiteChange): Promise<Workspace> {
  const current = await getWorkspace(db, id);
  if (current.site.status === 'canceled')
    throw new AppError(
      'workspace_canceled',
      `Workspace "${id}" is canceled; its data is purged after the grace period.`,
    );
  return { site: (await updateSite(db, id, change))!, ownerEmail: current.ownerEmail };
}

/** A new plan: the site keeps all its data; features outside the plan are gated, not deleted. */
export function changePlan(db: Executor, id: string, plan: string): Promise<Workspace> {
  return changeWorkspace(db, id, { plan: checkPlan(plan) });
}

export function setSuspended(db: Executor, id: string, suspended: boolean): Promise<Workspace> {
  return changeWorkspace(db, id, { status: suspended ? 'suspended' : 'active' });
}

/**
 * Cancels a workspace: it answers like a suspended one at once and the purge job deletes it after
 * `graceMs`. Canceling twice is a no-op answering the same workspace. Call inside a transaction.
 */
export async function cancelWorkspace(db: Executor, id: string, graceMs: number): Promise<Workspace> {
  const current = await getWorkspace(db, id);
  if (current.site.status === 'canceled') return current;
  const site = (await updateSite(db, id, { status: 'canceled', canceledAt: new Date() }))!;
  await enqueueJob(db, PURGE_JOB, { siteId: id }, { siteId: id, delayMs: graceMs, maxAttempts: 5 });
  return { site, ownerEmail: current.ownerEmail };
}

/** SHA-256 of the request body in a canonical form (keys sorted), to compare idempotent retries. */
export function bodyHash(body: unknown): string {
  const canonical = (value: unknown): unknown =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>)
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([k, v]) => [k, canonical(v)]),
        )
      : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

interface StoredAnswer {
  status: number;
  response: unknown;
}

/**
 * The stored answer of an earlier call with this purchase key and Idempotency-Key and the same body;
 * 422 `idempotency_key_reused` when that call had another body; undefined for a new key.
 */
export async function replayedAnswer(
  db: Executor,
  credentialId: string,
  key: string,
  hash: string,
): Promise<StoredAnswer | undefined> {
  const [row] = await db
    .select()
    .from(purchaseIdempotency)
    .where(and(eq(purchaseIdempotency.credentialId, credentialId), eq(purchaseIdempotency.key, key)));
  if (!row) return undefined;
  if (row.bodyHash !== hash)
    throw new AppError(
      'idempotency_key_reused',
      `The Idempotency-Key "${key}" was used with another request body; use a new key for a new request.`,
    );
  return { status: row.status, response: row.response };
}

/** Stores the answer for a key, in the transaction that did the work; a concurrent twin is a 409. */
export async function storeAnswer(
  db: Executor,
  credentialId: string,
  key: string,
  hash: string,
  answer: StoredAnswer,
): Promise<void> {
  const stored = await db
    .insert(purchaseIdempotency)
    .values({ credentialId, key, bodyHash: hash, status: answer.status, response: answer.response })
    .onConflictDoNothing()
    .returning({ key: purchaseIdempotency.key });
  if (stored.length === 0)
    throw new AppError('conflict', `Another request with the Idempotency-Key "${key}" is being processed; retry it.`);
}

interface AuditEntry {
  credentialId: string | null;
  /** The platform administrator, for a console admin form; purchase API calls leave it out. */
  accountId?: string | null;
  method: string;
  path: string;
  target: string | null;
  status: number;
}

export async function recordCall(db: Executor, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({ id: newId(16), ...entry });
}

/** An audit entry with the name of its purchase key and the username of its account, when they still exist. */
export type AuditEntryOut = AuditRow & { keyName: string | null; username: string | null };

/** One page of the audit log, newest first, and the total. */
export async function listAudit(db: Executor, page: Page): Promise<{ rows: AuditEntryOut[]; total: number }> {
  const rows = await db
    .select({ ...getTableColumns(auditLog), keyName: credentials.name, username: users.username })
    .from(auditLog)
    .leftJoin(credentials, eq(credentials.id, auditLog.credentialId))
    .leftJoin(users, eq(users.id, auditLog.accountId))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(page.pageSize)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(auditLog);
  return { rows, total: total!.n };
}
