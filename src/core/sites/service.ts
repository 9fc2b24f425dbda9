import { count, desc, eq, inArray, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import type { Page } from '../../http/pagination.js';
import { isSiteLabel } from '../../http/hosts.js';
import { users, type UserRow } from '../accounts/tables.js';
import { siteMembers, sites, type SiteRow } from './tables.js';

/** Labels that name platform hosts rather than sites. Names starting `r-` are preview hosts. */
const RESERVED_SITE_IDS = new Set(['www', 'api', 'portal', 'admin', 'stage', 'mcp']);

export function siteIdProblem(id: string): string | undefined {
  if (!isSiteLabel(id))
    return 'must be 1 to 40 lower-case letters, digits and single hyphens, starting and ending with a letter or digit';
  if (RESERVED_SITE_IDS.has(id)) return `"${id}" is reserved`;
  if (id.startsWith('r-')) return 'ids starting with "r-" are reserved for release previews';
  return undefined;
}

interface NewSite {
  id: string;
  kind: SiteRow['kind'];
  plan?: SiteRow['plan'] | undefined;
}

export async function createSite(db: Executor, owner: UserRow | null, input: NewSite): Promise<SiteRow> {
  const problem = siteIdProblem(input.id);
  if (problem) throw new AppError('invalid_site_id', `Site id ${problem}.`);
  const [row] = await db
    .insert(sites)
    .values({ id: input.id, kind: input.kind, plan: input.plan ?? 'free', ownerId: owner?.id ?? null })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new AppError('site_exists', `A site with id "${input.id}" exists.`);
  return row;
}

export async function findSite(db: Executor, id: string): Promise<SiteRow | undefined> {
  const [row] = await db.select().from(sites).where(eq(sites.id, id));
  return row;
}

export async function listSites(db: Executor, viewer: UserRow): Promise<SiteRow[]> {
  const query = db.select().from(sites);
  return viewer.isAdmin
    ? query.orderBy(desc(sites.createdAt), desc(sites.id))
    : query
        .where(
          or(
            eq(sites.ownerId, viewer.id),
            inArray(
              sites.id,
              db.select({ id: siteMembers.siteId }).from(siteMembers).where(eq(siteMembers.userId, viewer.id)),
            ),
          ),
        )
        .orderBy(desc(sites.createdAt), desc(sites.id));
}

/** One page of every site with its owner's e-mail address (null without an owner), newest first, and the total. */
export async function listAllSites(
  db: Executor,
  page: Page,
): Promise<{ rows: Array<{ site: SiteRow; ownerEmail: string | null }>; total: number }> {
  const rows = await db
    .select({ site: sites, ownerEmail: users.email })
    .from(sites)
    .leftJoin(users, eq(users.id, sites.ownerId))
    .orderBy(desc(sites.createdAt), desc(sites.id))
    .limit(page.pageSize)
    .offset(page.offset);
  const [total] = await db.select({ n: count() }).from(sites);
  return { rows, total: total!.n };
}

/** How many sites each of these accounts owns; an account without sites is absent. */
export async function countSitesByOwner(db: Executor, ownerIds: string[]): Promise<Map<string, number>> {
  if (ownerIds.length === 0) return new Map();
  const rows = await db
    .select({ ownerId: sites.ownerId, n: count() })
    .from(sites)
    .where(inArray(sites.ownerId, ownerIds))
    .groupBy(sites.ownerId);
  return new Map(rows.map((row) => [row.ownerId!, row.n]));
}

export async function deleteSite(db: Executor, id: string): Promise<void> {
  await db.delete(sites).where(eq(sites.id, id));
}

export type SiteChange = Partial<Pick<SiteRow, 'plan' | 'status' | 'canceledAt' | 'ownerId'>>;

/** Writes a change to a site; answers the new row, or undefined when there is no such site. */
export async function updateSite(db: Executor, id: string, change: SiteChange): Promise<SiteRow | undefined> {
  const [row] = await db.update(sites).set(change).where(eq(sites.id, id)).returning();
  return row;
}
