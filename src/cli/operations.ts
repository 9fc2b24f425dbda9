// Operator commands that change the database. Each runs either in this process or, when a server
// already owns the embedded database, inside that server (see control.ts); the text it answers is
// what the CLI prints.
import type { BlobStore } from '../adapters/blobs/index.js';
import { createAdmin } from '../core/accounts/service.js';
import type { PlanMatrix } from '../core/plans/matrix.js';
import { isFeature } from '../core/plans/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import type { DatabaseHandle } from '../db/client.js';
import type { EdgeCache } from '../deploy/edge-cache.js';
import { pruneSites } from '../deploy/prune.js';
import { migrationStatus, runMigrations } from '../db/migrate.js';
import { isEmail } from '../core/settings/allowlist.js';
import { createMember } from '../forum/members.js';
import { AppError } from '../http/errors.js';
import { installAndSeed } from '../runtime.js';

export interface OperationContext {
  database: DatabaseHandle;
  /** The community instance id in single mode; undefined on a platform. */
  singleSite?: string | undefined;
  blobs: BlobStore;
  /** Tells the edge of every node about deleted releases. */
  edge: EdgeCache;
  /** Tells every node about a changed plan matrix. */
  plans: PlanMatrix;
}

export type OperationArgs = Record<string, string | undefined>;

export class OperationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationError';
  }
}

async function dbUpgrade(ctx: OperationContext): Promise<string> {
  const ran = await runMigrations(ctx.database);
  const status = await migrationStatus(ctx.database);
  return ran === 0 ? `Database is up to date (${status.applied} migrations applied).` : `Applied ${ran} migration(s); ${status.applied} in total.`;
}

async function install(ctx: OperationContext): Promise<string> {
  const ran = await runMigrations(ctx.database);
  const seeded = await installAndSeed(ctx.database, ctx.singleSite);
  const lines = [ran === 0 ? 'Database schema is up to date.' : `Applied ${ran} migration(s).`];
  lines.push(seeded.features === 0 ? 'Plan features already seeded.' : `Seeded ${seeded.features} plan feature(s).`);
  if (ctx.singleSite) lines.push(seeded.siteCreated ? `Created community instance "${ctx.singleSite}".` : `Community instance "${ctx.singleSite}" exists.`);
  return lines.join('\n');
}

async function seedFeaturesOperation(ctx: OperationContext): Promise<string> {
  const seeded = await installAndSeed(ctx.database, undefined);
  return seeded.features === 0 ? 'Plan features already seeded; nothing changed.' : `Seeded ${seeded.features} plan feature(s).`;
}

const PLANS: readonly SiteRow['plan'][] = ['free', 'pro', 'business'];

async function planFeatureOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const { feature = '', plans = '' } = args;
  if (!isFeature(feature)) throw new OperationError(`plan-feature: unknown feature "${feature}".`);
  const chosen = plans.split(',').filter(Boolean);
  const unknown = chosen.filter((plan) => !PLANS.includes(plan as SiteRow['plan']));
  if (unknown.length > 0) throw new OperationError(`plan-feature: unknown plan(s) ${unknown.join(', ')}; plans are ${PLANS.join(', ')}.`);
  await ctx.plans.setFeaturePlans(feature, chosen as SiteRow['plan'][]);
  return `${feature} is now on ${chosen.length > 0 ? chosen.join(', ') : 'no plan'}.`;
}

async function createAdminOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const { username, email, password } = args;
  if (!username || !email || !password) throw new OperationError('create-admin needs -u <username>, -e <email> and -p <password>.');
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{1,38}$/.test(username)) throw new OperationError('The username must be 2 to 39 letters, digits, `_`, `.` or `-`.');
  if (!isEmail(email)) throw new OperationError(`"${email}" is not an e-mail address.`);
  if (password.length < 10) throw new OperationError('The password must be at least 10 characters long.');
  try {
    if (ctx.singleSite) {
      // A single instance has no portal: its administrator is a member of the community with the
      // admin role, logging in on the forum itself. The instance is made here if no server has yet.
      const seeded = await installAndSeed(ctx.database, ctx.singleSite);
      const member = await createMember(ctx.database.db, ctx.singleSite, { username, email, password, role: 'admin' });
      const lines = seeded.siteCreated ? [`Created community instance "${ctx.singleSite}".`] : [];
      lines.push(`Created administrator "${member.username}" <${member.email}> of community instance "${ctx.singleSite}"; log in at /login.`);
      return lines.join('\n');
    }
    const user = await createAdmin(ctx.database.db, { username, email, password });
    return `Created administrator "${user.username}" <${user.email}>.`;
  } catch (error) {
    if (error instanceof AppError) throw new OperationError(error.message);
    throw error;
  }
}

async function pruneOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const keep = Number(args.keep);
  if (!Number.isInteger(keep) || keep < 1) throw new OperationError('prune needs --keep N with N a whole number of at least 1.');
  const all = args['all-sites'] === 'true';
  if (all === Boolean(args.site)) throw new OperationError('prune needs either --site ID or --all-sites.');
  const outcomes = await pruneSites(ctx.database.db, ctx.blobs, ctx.edge, all ? 'all' : [args.site!], keep);
  if (outcomes.length === 0) return all ? 'No site has releases; nothing to prune.' : `Site "${args.site}" has no releases; nothing to prune.`;
  return outcomes
    .map(({ siteId, deletedReleases, deletedBlobs }) =>
      deletedReleases.length === 0
        ? `${siteId}: nothing to prune.`
        : `${siteId}: deleted ${deletedReleases.length} release(s) (${deletedReleases.join(', ')}) and ${deletedBlobs} blob(s) no release uses.`,
    )
    .join('\n');
}

export const operations = {
  'db-upgrade': dbUpgrade,
  install,
  'seed-features': seedFeaturesOperation,
  'plan-feature': planFeatureOperation,
  'create-admin': createAdminOperation,
  prune: pruneOperation,
} satisfies Record<string, (ctx: OperationContext, args: OperationArgs) => Promise<string>>;

export type OperationName = keyof typeof operations;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

export function runOperation(ctx: OperationContext, name: OperationName, args: OperationArgs): Promise<string> {
  return operations[name](ctx, args);
}
