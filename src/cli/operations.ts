// Operator commands that change the database. Each runs either in this process or, when a server
// already owns the embedded database, inside that server (see control.ts); the text it answers is
// what the CLI prints.
import { createAdmin } from '../core/accounts/service.js';
import { isFeature, writeFeaturePlans } from '../core/plans/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import { findSite, updateSite } from '../core/sites/service.js';
import { pruneSites } from '../deploy/prune.js';
import { migrationStatus, runMigrations } from '../db/migrate.js';
import { isEmail } from '../lib/email.js';
import { createMember, deleteMember, findMemberByUsername, updateMember } from '../forum/members.js';
import { AppError } from '../http/errors.js';
import { installAndSeed } from '../runtime.js';
import { seedFeatures } from '../core/plans/service.js';
import { settingsApply, settingsGet, settingsSet } from './settings-operations.js';
import { backupOperation } from './backup-operations.js';
import { passwordProblem } from '../lib/password-rules.js';
import { OperationError, type OperationArgs, type OperationContext } from './operation-context.js';

export { OperationError, type OperationArgs, type OperationContext } from './operation-context.js';

async function dbUpgrade(ctx: OperationContext): Promise<string> {
  const ran = await runMigrations(ctx.database);
  const status = await migrationStatus(ctx.database);
  return ran === 0
    ? `Database is up to date (${status.applied} migrations applied).`
    : `Applied ${ran} migration(s); ${status.applied} in total.`;
}

async function install(ctx: OperationContext): Promise<string> {
  const ran = await runMigrations(ctx.database);
  const seeded = await installAndSeed(ctx.database, ctx.singleSite);
  const lines = [ran === 0 ? 'Database schema is up to date.' : `Applied ${ran} migration(s).`];
  lines.push(seeded.features === 0 ? 'Plan features already seeded.' : `Seeded ${seeded.features} plan feature(s).`);
  if (ctx.singleSite)
    lines.push(
      seeded.siteCreated
        ? `Created community instance "${ctx.singleSite}".`
        : `Community instance "${ctx.singleSite}" exists.`,
    );
  return lines.join('\n');
}

async function seedFeaturesOperation(ctx: OperationContext): Promise<string> {
  const features = await seedFeatures(ctx.database.db);
  return features === 0 ? 'Plan features already seeded; nothing changed.' : `Seeded ${features} plan feature(s).`;
}

const PLANS: readonly SiteRow['plan'][] = ['free', 'pro', 'business'];

async function planFeatureOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const { feature = '', plans = '' } = args;
  if (!isFeature(feature)) throw new OperationError(`plan-feature: unknown feature "${feature}".`);
  const chosen = plans.split(',').filter(Boolean);
  const unknown = chosen.filter((plan) => !PLANS.includes(plan as SiteRow['plan']));
  if (unknown.length > 0)
    throw new OperationError(`plan-feature: unknown plan(s) ${unknown.join(', ')}; plans are ${PLANS.join(', ')}.`);
  await writeFeaturePlans(ctx.database.db, feature, chosen as SiteRow['plan'][]);
  return `${feature} is now on ${chosen.length > 0 ? chosen.join(', ') : 'no plan'}.`;
}

/** Moves a site to a plan, as the console's /admin page and the purchase API do; every node hears of it. */
async function planSetOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const { site = '', plan = '' } = args;
  const chosen = PLANS.find((p) => p === plan);
  if (!chosen) throw new OperationError(`plan set: unknown plan "${plan}"; plans are ${PLANS.join(', ')}.`);
  const before = await findSite(ctx.database.db, site);
  if (!before) throw new OperationError(`plan set: no site "${site}".`);
  await updateSite(ctx.database.db, site, { plan: chosen });
  return before.plan === chosen
    ? `Site "${site}" is already on the ${chosen} plan.`
    : `Site "${site}" is now on the ${chosen} plan (was ${before.plan}), on every node from its next request on.`;
}

async function createAdminOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const { username, email, password } = args;
  if (!username || !email || !password)
    throw new OperationError('create-admin needs -u <username>, -e <email> and -p <password>.');
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{1,38}$/.test(username))
    throw new OperationError('The username must be 2 to 39 letters, digits, `_`, `.` or `-`.');
  if (!isEmail(email)) throw new OperationError(`"${email}" is not an e-mail address.`);
  const weak = passwordProblem(password);
  if (weak) throw new OperationError(`The password ${weak}.`);
  try {
    // The first admin installs: the mode is recorded (decision 0025), and in single mode the
    // instance is made here if no server has made it yet.
    const seeded = await installAndSeed(ctx.database, ctx.singleSite);
    if (ctx.singleSite) {
      // A single instance has no portal: its administrator is a member of the community with the
      // admin role, logging in on the forum itself.
      const member = await createMember(ctx.database.db, ctx.singleSite, { username, email, password, role: 'admin' });
      const lines = seeded.siteCreated ? [`Created community instance "${ctx.singleSite}".`] : [];
      lines.push(
        `Created administrator "${member.username}" <${member.email}> of community instance "${ctx.singleSite}"; log in at /login.`,
      );
      return lines.join('\n');
    }
    const user = await createAdmin(ctx.database.db, { username, email, password });
    return `Created administrator "${user.username}" <${user.email}>.`;
  } catch (error) {
    if (error instanceof AppError) throw new OperationError(error.message);
    throw error;
  }
}

export const MEMBER_ACTIONS = ['role', 'ban', 'unban', 'delete'] as const;
const ROLES = ['admin', 'moderator', 'member'] as const;

/** Changes one member of a community through the member service, last-admin guard included. */
async function memberOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const { action = '', username = '', role } = args;
  const siteId = ctx.singleSite ?? args.site;
  if (!siteId) throw new OperationError('member needs --site ID (or --single) to name the community.');
  const db = ctx.database.db;
  const member = await findMemberByUsername(db, siteId, username);
  if (!member) throw new OperationError(`No member "${username}" in community "${siteId}".`);
  try {
    switch (action) {
      case 'role': {
        const chosen = ROLES.find((r) => r === role);
        if (!chosen) throw new OperationError(`member role: the role must be one of ${ROLES.join(', ')}.`);
        await updateMember(db, siteId, member.id, { role: chosen });
        return `"${member.username}" of community "${siteId}" is now ${chosen}.`;
      }
      case 'ban':
      case 'unban':
        await updateMember(db, siteId, member.id, { banned: action === 'ban' });
        return `"${member.username}" of community "${siteId}" is ${action === 'ban' ? 'banned' : 'no longer banned'}.`;
      case 'delete':
        await deleteMember(db, siteId, member.id);
        return `Deleted "${member.username}" of community "${siteId}"; their posts stay, without an author.`;
      default:
        throw new OperationError(`member: the action must be one of ${MEMBER_ACTIONS.join(', ')}.`);
    }
  } catch (error) {
    if (error instanceof AppError) throw new OperationError(error.message);
    throw error;
  }
}

async function pruneOperation(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const keep = Number(args.keep);
  if (!Number.isInteger(keep) || keep < 1)
    throw new OperationError('prune needs --keep N with N a whole number of at least 1.');
  const all = args['all-sites'] === 'true';
  if (all === Boolean(args.site)) throw new OperationError('prune needs either --site ID or --all-sites.');
  const outcomes = await pruneSites(ctx.database.db, ctx.blobs, ctx.edge, all ? 'all' : [args.site!], keep);
  if (outcomes.length === 0)
    return all ? 'No site has releases; nothing to prune.' : `Site "${args.site}" has no releases; nothing to prune.`;
  return outcomes
    .map(({ siteId, deletedReleases, deletedBlobs }) =>
      deletedReleases.length === 0
        ? `${siteId}: nothing to prune.`
        : `${siteId}: deleted ${deletedReleases.length} release(s) (${deletedReleases.join(', ')}) and ${deletedBlobs} blob(s) no release uses.`,
    )
    .join('\n');
}

const operations = {
  'db-upgrade': dbUpgrade,
  install,
  'seed-features': seedFeaturesOperation,
  'plan-feature': planFeatureOperation,
  'plan-set': planSetOperation,
  'create-admin': createAdminOperation,
  member: memberOperation,
  prune: pruneOperation,
  'settings-get': settingsGet,
  'settings-set': settingsSet,
  'settings-apply': settingsApply,
  backup: backupOperation,
} satisfies Record<string, (ctx: OperationContext, args: OperationArgs) => Promise<string>>;

export type OperationName = keyof typeof operations;

export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** Runs a command; whatever it wrote, every node hears of before this answers (best-effort: see `announce`). */
export async function runOperation(ctx: OperationContext, name: OperationName, args: OperationArgs): Promise<string> {
  try {
    return await operations[name](ctx, args);
  } finally {
    await ctx.epochs.announce();
  }
}
