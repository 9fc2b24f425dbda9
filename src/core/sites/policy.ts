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
