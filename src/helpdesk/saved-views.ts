// An agent's saved ticket lists in the inbox (/desk/views/<id>): a name and the list's filters and
// sort, each the agent's own. Only the inbox reads and writes them; the API's clients keep their
// queries themselves.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { newId } from '../lib/ids.js';
import { helpdeskSavedViews, type SavedViewRow } from './tables.js';

/** Views an agent keeps at most. */
const MAX_SAVED_VIEWS = 30;
const MAX_VIEW_NAME = 60;

export function listSavedViews(db: Executor, siteId: string, memberId: string): Promise<SavedViewRow[]> {
  return db
    .select()
    .from(helpdeskSavedViews)
    .where(and(eq(helpdeskSavedViews.siteId, siteId), eq(helpdeskSavedViews.memberId, memberId)))
    .orderBy(asc(sql`lower(${helpdeskSavedViews.name})`), asc(helpdeskSavedViews.id));
}

export async function findSavedView(
  db: Executor,
  siteId: string,
  memberId: string,
  id: string,
): Promise<SavedViewRow | undefined> {
  const [row] = await db
    .select()
    .from(helpdeskSavedViews)
    .where(
      and(
        eq(helpdeskSavedViews.id, id),
        eq(helpdeskSavedViews.siteId, siteId),
        eq(helpdeskSavedViews.memberId, memberId),
      ),
    );
  return row;
}

/**
 * Saves the list as `name` for the agent: the new view, or why not in words (a name taken, too
 * many views). The query is checked by the caller (the list it was shown as).
 */
export async function saveView(
  db: Executor,
  siteId: string,
  memberId: string,
  name: string,
  query: Record<string, string>,
): Promise<SavedViewRow | string> {
  const trimmed = name.trim();
  if (trimmed === '') return 'Name the view first.';
  if (trimmed.length > MAX_VIEW_NAME) return `Keep the name under ${MAX_VIEW_NAME} characters.`;
  const [{ count }] = (await db
    .select({ count: sql<number>`count(*)::int` })
    .from(helpdeskSavedViews)
    .where(and(eq(helpdeskSavedViews.siteId, siteId), eq(helpdeskSavedViews.memberId, memberId)))) as [
    { count: number },
  ];
  if (count >= MAX_SAVED_VIEWS) return `You have ${MAX_SAVED_VIEWS} views, the most there can be; delete one first.`;
  const [row] = await db
    .insert(helpdeskSavedViews)
    .values({ id: newId(), siteId, memberId, name: trimmed, query })
    .onConflictDoNothing()
    .returning();
  return row ?? `You already have a view named "${trimmed}".`;
}

export async function deleteSavedView(db: Executor, siteId: string, memberId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(helpdeskSavedViews)
    .where(
      and(
        eq(helpdeskSavedViews.id, id),
        eq(helpdeskSavedViews.siteId, siteId),
        eq(helpdeskSavedViews.memberId, memberId),
      ),
    )
    .returning({ id: helpdeskSavedViews.id });
  return deleted.length > 0;
}
