// Categories and forums: the structure instance admins manage. Reads go through the visibility
// policy, and a forum's counters are computed for the viewer, so hidden topics never show in them.
import { and, asc, count, eq, exists, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import {
  canSeeForum,
  isStaff,
  visibleForumsWhere,
  visiblePostCount,
  visibleTopicCount,
  visibleTopicsOfForumWhere,
  type Viewer,
} from './policy.js';
import { forumCategories, forums, forumTopics, type ForumCategoryRow, type ForumRow } from './tables.js';

interface ForumStats {
  topicCount: number;
  postCount: number;
  lastPostAt: Date | null;
}

export interface ForumWithStats {
  forum: ForumRow;
  stats: ForumStats;
}

function isUniqueViolation(error: unknown): boolean {
  // Both drivers report the SQLSTATE as `code`; drizzle wraps it in `cause`.
  const candidates = [error, (error as { cause?: unknown })?.cause];
  return candidates.some((e) => (e as { code?: string } | undefined)?.code === '23505');
}

async function uniqueSlug<T>(slug: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('slug_taken', `The slug "${slug}" is taken.`);
    throw error;
  }
}

// Categories ---------------------------------------------------------------------------------------

interface CategoryInput {
  name: string;
  slug: string;
  description?: string | undefined;
  position?: number | undefined;
}

export async function createCategory(db: Executor, siteId: string, input: CategoryInput): Promise<ForumCategoryRow> {
  return uniqueSlug(input.slug, async () => {
    const [row] = await db
      .insert(forumCategories)
      .values({
        id: newId(),
        siteId,
        name: input.name,
        slug: input.slug,
        description: input.description ?? '',
        position: input.position ?? 0,
      })
      .returning();
    return row!;
  });
}

export async function findCategory(db: Executor, siteId: string, idOrSlug: string): Promise<ForumCategoryRow> {
  const [row] = await db
    .select()
    .from(forumCategories)
    .where(
      and(eq(forumCategories.siteId, siteId), or(eq(forumCategories.id, idOrSlug), eq(forumCategories.slug, idOrSlug))),
    )
    .orderBy(sql`${forumCategories.id} = ${idOrSlug} desc`)
    .limit(1);
  if (!row) throw new AppError('category_not_found', `No category "${idOrSlug}".`);
  return row;
}

function visibleCategoriesWhere(db: Executor, siteId: string, viewer: Viewer) {
  const holdsVisibleForum = exists(
    db
      .select({ one: sql`1` })
      .from(forums)
      .where(and(eq(forums.categoryId, forumCategories.id), visibleForumsWhere(viewer))),
  );
  return and(eq(forumCategories.siteId, siteId), isStaff(viewer) ? undefined : holdsVisibleForum);
}

/** Categories holding at least one forum the viewer may see; staff also see empty ones. */
export async function listCategories(db: Executor, siteId: string, viewer: Viewer): Promise<ForumCategoryRow[]> {
  return db
    .select()
    .from(forumCategories)
    .where(visibleCategoriesWhere(db, siteId, viewer))
    .orderBy(asc(forumCategories.position), asc(forumCategories.name), asc(forumCategories.id));
}

/** One page of `listCategories`, with the total. */
export async function pageOfCategories(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  page: Page,
): Promise<{ rows: ForumCategoryRow[]; total: number }> {
  const where = visibleCategoriesWhere(db, siteId, viewer);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(forumCategories)
      .where(where)
      .orderBy(asc(forumCategories.position), asc(forumCategories.name), asc(forumCategories.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ total: count() }).from(forumCategories).where(where),
  ]);
  return { rows, total: counted?.total ?? 0 };
}

export async function updateCategory(
  db: Executor,
  siteId: string,
  idOrSlug: string,
  change: Partial<CategoryInput>,
): Promise<ForumCategoryRow> {
  const category = await findCategory(db, siteId, idOrSlug);
  if (Object.keys(change).length === 0) return category;
  return uniqueSlug(change.slug ?? category.slug, async () => {
    const [row] = await db.update(forumCategories).set(change).where(eq(forumCategories.id, category.id)).returning();
    return row!;
  });
}

/** Deleting a category keeps its forums, uncategorized. */
export async function deleteCategory(db: Executor, siteId: string, idOrSlug: string): Promise<void> {
  const category = await findCategory(db, siteId, idOrSlug);
  await db.delete(forumCategories).where(eq(forumCategories.id, category.id));
}

// Forums -------------------------------------------------------------------------------------------

interface ForumInput {
  name: string;
  slug: string;
  category_id?: string | null | undefined;
  description?: string | undefined;
  visibility?: ForumRow['visibility'] | undefined;
  position?: number | undefined;
  locked?: boolean | undefined;
}

async function categoryIdFor(
  db: Executor,
  siteId: string,
  value: string | null | undefined,
): Promise<string | null | undefined> {
  if (value === undefined || value === null) return value;
  return (await findCategory(db, siteId, value)).id;
}

export async function createForum(db: Executor, siteId: string, input: ForumInput): Promise<ForumRow> {
  const categoryId = await categoryIdFor(db, siteId, input.category_id);
  return uniqueSlug(input.slug, async () => {
    const [row] = await db
      .insert(forums)
      .values({
        id: newId(),
        siteId,
        categoryId: categoryId ?? null,
        name: input.name,
        slug: input.slug,
        description: input.description ?? '',
        visibility: input.visibility ?? 'public',
        position: input.position ?? 0,
        locked: input.locked ?? false,
      })
      .returning();
    return row!;
  });
}

/** Any forum of the site by id or slug, regardless of who asks: for admin writes and internal use. */
export async function findForum(db: Executor, siteId: string, idOrSlug: string): Promise<ForumRow | undefined> {
  const [row] = await db
    .select()
    .from(forums)
    .where(and(eq(forums.siteId, siteId), or(eq(forums.id, idOrSlug), eq(forums.slug, idOrSlug))))
    .orderBy(sql`${forums.id} = ${idOrSlug} desc`)
    .limit(1);
  return row;
}

/** The forum if the viewer may see it; 404 `forum_not_found` otherwise, exactly as for a missing one. */
export async function findVisibleForum(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  idOrSlug: string,
): Promise<ForumRow> {
  const forum = await findForum(db, siteId, idOrSlug);
  if (!forum || !canSeeForum(viewer, forum)) throw new AppError('forum_not_found', `No forum "${idOrSlug}".`);
  return forum;
}

/**
 * When the last post was written in each forum, among the topics the viewer may see. Two probes of
 * the forum's list index per forum (pinned topics, then the others), newest first: never a scan of
 * the forum's topics.
 */
async function lastPostTimes(db: Executor, viewer: Viewer, forumIds: string[]): Promise<Map<string, Date>> {
  const times = new Map<string, Date>();
  if (forumIds.length === 0) return times;
  const newest = (pinned: boolean) =>
    sql`(select ${forumTopics.lastPostAt} from ${forumTopics}
      where ${and(
        eq(forumTopics.forumId, forums.id),
        eq(forumTopics.pinned, pinned),
        visibleTopicsOfForumWhere(viewer),
      )}
      order by ${forumTopics.lastPostAt} desc limit 1)`;
  const rows = await db
    .select({ id: forums.id, last: sql<Date | string | null>`greatest(${newest(true)}, ${newest(false)})` })
    .from(forums)
    .where(inArray(forums.id, forumIds));
  for (const row of rows) if (row.last) times.set(row.id, new Date(row.last));
  return times;
}

const NO_STATS: ForumStats = { topicCount: 0, postCount: 0, lastPostAt: null };

/** Forums with their topic and post counts (from the counters) and last activity, as the viewer sees them. */
export async function withStats(db: Executor, viewer: Viewer, rows: ForumRow[]): Promise<ForumWithStats[]> {
  const seen = rows.filter((forum) => canSeeForum(viewer, forum));
  const last = await lastPostTimes(
    db,
    viewer,
    seen.map((forum) => forum.id),
  );
  return rows.map((forum) => ({
    forum,
    stats: canSeeForum(viewer, forum)
      ? {
          topicCount: visibleTopicCount(viewer, forum),
          postCount: visiblePostCount(viewer, forum),
          lastPostAt: last.get(forum.id) ?? null,
        }
      : NO_STATS,
  }));
}

/** One page of the forums the viewer may see, in list order, with the total. */
export async function pageOfVisibleForums(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  page: Page,
): Promise<{ rows: ForumWithStats[]; total: number }> {
  const where = and(eq(forums.siteId, siteId), visibleForumsWhere(viewer));
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(forums)
      .where(where)
      .orderBy(asc(forums.position), asc(forums.name), asc(forums.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ total: count() }).from(forums).where(where),
  ]);
  return { rows: await withStats(db, viewer, rows), total: counted?.total ?? 0 };
}

export async function listVisibleForums(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  categoryId?: string,
): Promise<ForumWithStats[]> {
  const rows = await db
    .select()
    .from(forums)
    .where(
      and(
        eq(forums.siteId, siteId),
        visibleForumsWhere(viewer),
        categoryId !== undefined ? eq(forums.categoryId, categoryId) : undefined,
      ),
    )
    .orderBy(asc(forums.position), asc(forums.name), asc(forums.id));
  return withStats(db, viewer, rows);
}

export async function updateForum(
  db: Executor,
  siteId: string,
  idOrSlug: string,
  change: Partial<ForumInput>,
): Promise<ForumRow> {
  const forum = await findForum(db, siteId, idOrSlug);
  if (!forum) throw new AppError('forum_not_found', `No forum "${idOrSlug}".`);
  const { category_id: category, ...rest } = change;
  const categoryId = await categoryIdFor(db, siteId, category);
  const set = { ...rest, ...(categoryId !== undefined ? { categoryId } : {}) };
  if (Object.keys(set).length === 0) return forum;
  return uniqueSlug(change.slug ?? forum.slug, async () => {
    const [row] = await db.update(forums).set(set).where(eq(forums.id, forum.id)).returning();
    return row!;
  });
}

/**
 * Deletes a forum with its topics and posts. Its topics are locked before the forum row, the order
 * every write to a topic takes (topic row, then forum row: topics.ts), so a reply racing the delete
 * waits for it instead of deadlocking with it.
 */
export async function deleteForum(db: Executor, siteId: string, idOrSlug: string): Promise<void> {
  const forum = await findForum(db, siteId, idOrSlug);
  if (!forum) throw new AppError('forum_not_found', `No forum "${idOrSlug}".`);
  await db.transaction(async (tx) => {
    await tx
      .select({ id: forumTopics.id })
      .from(forumTopics)
      .where(eq(forumTopics.forumId, forum.id))
      .orderBy(forumTopics.id)
      .for('update');
    await tx.delete(forums).where(eq(forums.id, forum.id));
  });
}

// Order ---------------------------------------------------------------------------------------------

export type Direction = 'up' | 'down';

/**
 * Moves one row a step in an ordered list and writes 0..n-1 as the positions of the whole list, so
 * lists whose positions were all equal (the default 0) get a stable order the first time.
 */
function reordered<T extends { id: string }>(rows: T[], id: string, direction: Direction): T[] {
  const from = rows.findIndex((row) => row.id === id);
  const to = direction === 'up' ? from - 1 : from + 1;
  if (from < 0 || to < 0 || to >= rows.length) return rows;
  const out = [...rows];
  [out[from], out[to]] = [out[to]!, out[from]!];
  return out;
}

export async function moveCategory(
  db: Executor,
  siteId: string,
  idOrSlug: string,
  direction: Direction,
): Promise<void> {
  const category = await findCategory(db, siteId, idOrSlug);
  await db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: forumCategories.id, position: forumCategories.position })
      .from(forumCategories)
      .where(eq(forumCategories.siteId, siteId))
      .orderBy(asc(forumCategories.position), asc(forumCategories.name), asc(forumCategories.id))
      .for('update');
    const order = reordered(rows, category.id, direction);
    for (const [position, row] of order.entries()) {
      if (row.position !== position)
        await tx.update(forumCategories).set({ position }).where(eq(forumCategories.id, row.id));
    }
  });
}

/** Forums move among the forums of their own category (or among the uncategorized ones). */
export async function moveForum(db: Executor, siteId: string, idOrSlug: string, direction: Direction): Promise<void> {
  const forum = await findForum(db, siteId, idOrSlug);
  if (!forum) throw new AppError('forum_not_found', `No forum "${idOrSlug}".`);
  await db.transaction(async (tx) => {
    const rows = await tx
      .select({ id: forums.id, position: forums.position })
      .from(forums)
      .where(
        and(
          eq(forums.siteId, siteId),
          forum.categoryId ? eq(forums.categoryId, forum.categoryId) : isNull(forums.categoryId),
        ),
      )
      .orderBy(asc(forums.position), asc(forums.name), asc(forums.id))
      .for('update');
    const order = reordered(rows, forum.id, direction);
    for (const [position, row] of order.entries()) {
      if (row.position !== position) await tx.update(forums).set({ position }).where(eq(forums.id, row.id));
    }
  });
}

/** Every forum of the site regardless of visibility, in the index's order: for the admin area. */
export async function listAllForums(db: Executor, siteId: string): Promise<ForumRow[]> {
  return db
    .select()
    .from(forums)
    .where(eq(forums.siteId, siteId))
    .orderBy(asc(forums.position), asc(forums.name), asc(forums.id));
}

/** How many forums each category holds, for the confirmation that deleting it leaves them uncategorized. */
export async function countForumsOfCategory(db: Executor, siteId: string, categoryId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(forums)
    .where(and(eq(forums.siteId, siteId), eq(forums.categoryId, categoryId)));
  return row?.n ?? 0;
}
