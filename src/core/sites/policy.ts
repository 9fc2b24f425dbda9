import { AppError } from '../../http/errors.js';
import type { UserRow } from '../accounts/tables.js';
import type { SiteRow } from './tables.js';

export function canManageSite(user: UserRow, site: SiteRow): boolean {
  return user.isAdmin || site.ownerId === user.id;
}

/** The site if the user may manage it; 404 otherwise, so strangers cannot probe which ids exist. */
export function authorizeSite(user: UserRow, site: SiteRow | undefined, id: string): SiteRow {
  if (!site || !canManageSite(user, site)) throw new AppError('site_not_found', `No site "${id}".`);
  return site;
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
