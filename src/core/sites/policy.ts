import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import type { UserRow } from '../accounts/tables.js';
import type { SiteRole, SiteRow } from './tables.js';
import { roleAllows, siteRole } from './team.js';

export function canManageSite(user: UserRow, site: SiteRow): boolean {
  return user.isAdmin || site.ownerId === user.id;
}

/**
 * The site if the account's role on it allows what `needed` names (decision 0142): 404 for an
 * account not on its team, so strangers cannot probe which ids exist; 403 `site_role_required` for
 * a member whose role is too weak.
 */
export async function authorizeSite(
  db: Executor,
  user: UserRow,
  site: SiteRow | undefined,
  id: string,
  needed: SiteRole = 'owner',
): Promise<{ site: SiteRow; role: SiteRole }> {
  const role = site && (await siteRole(db, user, site));
  if (!site || !role) throw new AppError('site_not_found', `No site "${id}".`);
  if (!roleAllows(role, needed))
    throw new AppError('site_role_required', `This needs the ${needed} role on "${id}"; yours is ${role}.`);
  return { site, role };
}

/**
 * Only platform administrators choose a paid plan; everyone else starts on the default plan
 * (BLUME_DEFAULT_PLAN, `free` unless the operator says otherwise) and a purchase or an administrator
 * moves a site up. Asking for `free` or the default plan explicitly is fine.
 */
export function authorizePlanChoice(
  user: UserRow,
  plan: SiteRow['plan'] | undefined,
  defaultPlan: SiteRow['plan'],
): void {
  if (plan !== undefined && plan !== 'free' && plan !== defaultPlan && !user.isAdmin) {
    throw new AppError(
      'plan_not_selectable',
      `Only platform administrators set the plan "${plan}"; create the site on "${defaultPlan}" and ask an administrator or buy a plan (docs/plans.md).`,
    );
  }
}
