// Workspaces for billing systems: a workspace is a site (its id is the site id) with its owner
// account, plan and status. Provisioning, plan changes, suspension and cancellation write the site
// row; callers then tell every node's SiteDirectory (decision 0062). A purchase key reaches only the
// workspaces it provisioned, and an existing account becomes an owner only by accepting the
// workspace itself (decision 0118).
import { createHash, randomBytes } from 'node:crypto';
import { and, count, desc, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { enqueueJob } from '../jobs/queue.js';
import { sendInvitation } from '../core/accounts/password-mail.js';
import { createAccount, findUserByLogin } from '../core/accounts/service.js';
import { users, type UserRow } from '../core/accounts/tables.js';
import { credentials } from '../core/credentials/tables.js';
import { DEFAULT_FEATURES, loadFeaturePlans } from '../core/plans/service.js';
import { createSite, findSite, updateSite, type SiteChange } from '../core/sites/service.js';
import { sites, type SiteRow } from '../core/sites/tables.js';
import { sendWorkspaceOffer } from './offer-mail.js';
import { auditLog, purchaseIdempotency, purchaseWorkspaces, type AuditRow } from './tables.js';

const PLANS = ['free', 'pro', 'business'] as const;
export const PURGE_JOB = 'purchase.purge';

export interface Workspace {
  site: SiteRow;
  /** The owner's address, or while the owner is pending the address of the account it is offered to. */
  ownerEmail: string | null;
  /** Offered to an existing account that has not accepted it yet: the site has no owner meanwhile. */
  ownerPending?: boolean;
}

/**
 * Who acts on a workspace: a purchase key, which reaches only the workspaces it provisioned, or a
 * platform administrator on the console's admin pages, who reaches every site.
 */
export type WorkspaceActor = { purchaseKey: string } | 'platform_admin';

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
  /** The account the workspace is for: its new owner, or the existing account it is offered to. */
  owner: UserRow;
  newOwner: boolean;
}

/**
 * Creates the site for `purchaseKey`. When no account has the owner's address, the owner's account
 * is made with an unusable password and owns the site. An existing account is never handed a site
 * without its consent: the site starts without an owner and is offered to that account, which
 * accepts or declines it in the console. Call inside a transaction.
 */
export async function provisionWorkspace(
  db: Executor,
  purchaseKey: string,
  input: NewWorkspace,
): Promise<ProvisionedWorkspace> {
  const plan = checkPlan(input.plan);
  const found = await findUserByLogin(db, input.owner_email);
  const existing = found && found.email.toLowerCase() === input.owner_email.toLowerCase() ? found : undefined;
  const owner =
    existing ??
    (await createAccount(db, {
      username: await freeUsername(db, input),
      email: input.owner_email,
      // Nobody knows this password; the owner sets one through the link in the invitation.
      password: randomBytes(32).toString('base64url'),
    }));
  const site = await createSite(db, existing ? null : owner, { id: input.site_id, kind: input.kind, plan });
  await db
    .insert(purchaseWorkspaces)
    .values({ siteId: site.id, credentialId: purchaseKey, pendingOwnerId: existing?.id ?? null });
  return { site, ownerEmail: owner.email, ownerPending: Boolean(existing), owner, newOwner: !existing };
}

/** What became of the owner's invitation: the `invitation` field of a provisioned workspace. */
type Invitation = 'sent' | 'offer_sent' | 'not_sent_mail_disabled';

interface InvitationMail {
  /** Whether this server sends mail at all. */
  enabled: boolean;
  /** BLUME_PUBLIC_URL's origin, where the link leads. */
  portalOrigin: string;
  /** The site's production origin, named in the mail. */
  siteUrl: string;
}

/**
 * Invites a new owner to choose a password, or tells an existing account the workspace is offered
 * to it, in the provisioning transaction (the outbox sends after commit).
 */
export async function inviteOwner(
  db: Executor,
  provisioned: ProvisionedWorkspace,
  mail: InvitationMail,
): Promise<Invitation> {
  if (!mail.enabled) return 'not_sent_mail_disabled';
  const workspace = { siteId: provisioned.site.id, url: mail.siteUrl };
  if (!provisioned.newOwner) {
    await sendWorkspaceOffer(db, mail.portalOrigin, provisioned.owner, workspace);
    return 'offer_sent';
  }
  await sendInvitation(db, mail.portalOrigin, provisioned.owner, workspace);
  return 'sent';
}

/**
 * The workspace with this id as `actor` may see it; 404 `workspace_not_found` when there is none,
 * or when a purchase key asks for a site it did not provision (the same answer: a key learns
 * nothing about other sites).
 */
export async function getWorkspace(db: Executor, id: string, actor: WorkspaceActor): Promise<Workspace> {
  const [row] = await db
    .select({ site: sites, ownerEmail: users.email, pendingOwnerId: purchaseWorkspaces.pendingOwnerId })
    .from(sites)
    .leftJoin(purchaseWorkspaces, eq(purchaseWorkspaces.siteId, sites.id))
    .leftJoin(users, eq(users.id, sql`coalesce(${sites.ownerId}, ${purchaseWorkspaces.pendingOwnerId})`))
    .where(
      actor === 'platform_admin'
        ? eq(sites.id, id)
        : and(eq(sites.id, id), eq(purchaseWorkspaces.credentialId, actor.purchaseKey)),
    );
  if (!row) throw new AppError('workspace_not_found', `No workspace "${id}".`);
  return {
    site: row.site,
    ownerEmail: row.ownerEmail,
    ownerPending: !row.site.ownerId && row.pendingOwnerId !== null,
  };
}

/** The workspaces offered to the account and not yet accepted or declined, oldest first. */
export async function listOffers(db: Executor, user: UserRow): Promise<SiteRow[]> {
  const rows = await db
    .select({ site: sites })
    .from(purchaseWorkspaces)
    .innerJoin(sites, eq(sites.id, purchaseWorkspaces.siteId))
    .where(and(eq(purchaseWorkspaces.pendingOwnerId, user.id), isNull(sites.ownerId)))
    .orderBy(purchaseWorkspaces.createdAt);
  return rows.map((row) => row.site);
}

/**
 * The account answers an offer: accepting makes it the site's owner, declining leaves the site
 * without one (the billing system sees `owner_email: null`). 404 when no such offer is open for
 * this account; one conditional UPDATE, so two answers cannot both win.
 */
export async function answerOffer(db: Executor, siteId: string, user: UserRow, accept: boolean): Promise<SiteRow> {
  return db.transaction(async (tx) => {
    const [offer] = await tx
      .update(purchaseWorkspaces)
      .set({ pendingOwnerId: null })
      .where(and(eq(purchaseWorkspaces.siteId, siteId), eq(purchaseWorkspaces.pendingOwnerId, user.id)))
      .returning({ siteId: purchaseWorkspaces.siteId });
    const site = offer ? await findSite(tx, siteId) : undefined;
    if (!site || site.ownerId) throw new AppError('not_found', 'No workspace is offered to you under this name.');
    return accept ? (await updateSite(tx, siteId, { ownerId: user.id }))! : site;
  });
}

/** Changes a live workspace; a canceled one takes no changes (409 `workspace_canceled`). */
async function changeWorkspace(
  db: Executor,
  id: string,
  actor: WorkspaceActor,
  change: SiteChange,
): Promise<Workspace> {
  const current = await getWorkspace(db, id, actor);
  if (current.site.status === 'canceled')
    throw new AppError(
      'workspace_canceled',
      `Workspace "${id}" is canceled; its data is purged after the grace period.`,
    );
  return { ...current, site: (await updateSite(db, id, change))! };
}

/** A new plan: the site keeps all its data; features outside the plan are gated, not deleted. */
export function changePlan(db: Executor, id: string, actor: WorkspaceActor, plan: string): Promise<Workspace> {
  return changeWorkspace(db, id, actor, { plan: checkPlan(plan) });
}

export function setSuspended(db: Executor, id: string, actor: WorkspaceActor, suspended: boolean): Promise<Workspace> {
  return changeWorkspace(db, id, actor, { status: suspended ? 'suspended' : 'active' });
}

/**
 * Cancels a workspace: it answers like a suspended one at once and the purge job deletes it after
 * `graceMs`. Canceling twice is a no-op answering the same workspace. Call inside a transaction.
 */
export async function cancelWorkspace(
  db: Executor,
  id: string,
  actor: WorkspaceActor,
  graceMs: number,
): Promise<Workspace> {
  const current = await getWorkspace(db, id, actor);
  if (current.site.status === 'canceled') return current;
  const site = (await updateSite(db, id, { status: 'canceled', canceledAt: new Date() }))!;
  await enqueueJob(db, PURGE_JOB, { siteId: id }, { siteId: id, delayMs: graceMs, maxAttempts: 5 });
  return { ...current, site };
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

function reusedKey(key: string): AppError {
  return new AppError(
    'idempotency_key_reused',
    `The Idempotency-Key "${key}" was used with another request body; use a new key for a new request.`,
  );
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
  if (row.bodyHash !== hash) throw reusedKey(key);
  return { status: row.status, response: row.response };
}

/**
 * Claims an Idempotency-Key first thing in the transaction that does the work, which then
 * `completeAnswer`s it. A concurrent call with the same key waits on the claim's row: when the
 * first call commits, the claim finds its answer and replays it (undefined means the key is this
 * call's); when it rolls back, the claim is this call's after all. Nobody outside the transaction
 * ever sees a claim without its answer.
 */
export async function claimKey(
  tx: Executor,
  credentialId: string,
  key: string,
  hash: string,
): Promise<StoredAnswer | undefined> {
  const claimed = await tx
    .insert(purchaseIdempotency)
    .values({ credentialId, key, bodyHash: hash, status: 0, response: {} })
    .onConflictDoNothing()
    .returning({ key: purchaseIdempotency.key });
  if (claimed.length > 0) return undefined;
  const stored = await replayedAnswer(tx, credentialId, key, hash);
  if (!stored)
    throw new AppError('conflict', `Another request with the Idempotency-Key "${key}" is running; retry it.`);
  return stored;
}

/** Writes the answer of the call that claimed the key, in the same transaction. */
export async function completeAnswer(
  tx: Executor,
  credentialId: string,
  key: string,
  answer: StoredAnswer,
): Promise<void> {
  await tx
    .update(purchaseIdempotency)
    .set({ status: answer.status, response: answer.response })
    .where(and(eq(purchaseIdempotency.credentialId, credentialId), eq(purchaseIdempotency.key, key)));
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
