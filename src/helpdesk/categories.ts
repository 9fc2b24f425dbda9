// Help desk categories: what a ticket is about, and what an agent serves. An archived category is
// no longer offered: no ticket is opened or moved into it, while the tickets in it keep it.
import { and, asc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { OPEN_STATUSES } from './assignment.js';
import { helpdeskCategories, helpdeskTickets, type CategoryRow } from './tables.js';

interface CategoryInput {
  name?: string | undefined;
  description?: string | undefined;
  /** Archive (true) or bring back (false). */
  archived?: boolean | undefined;
}

/** Whether a write failed on a unique index (PostgreSQL's 23505, or PGlite's in the cause). */
export function isUniqueViolation(error: unknown): boolean {
  const candidates = [error, (error as { cause?: unknown })?.cause];
  return candidates.some((e) => (e as { code?: string } | undefined)?.code === '23505');
}

async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('helpdesk_category_exists', `A category named "${name}" exists.`);
    throw error;
  }
}

export function listCategories(db: Executor, siteId: string): Promise<CategoryRow[]> {
  return db
    .select()
    .from(helpdeskCategories)
    .where(eq(helpdeskCategories.siteId, siteId))
    .orderBy(asc(helpdeskCategories.name), asc(helpdeskCategories.id));
}

export async function getCategory(db: Executor, siteId: string, id: string): Promise<CategoryRow> {
  const [row] = await db
    .select()
    .from(helpdeskCategories)
    .where(and(eq(helpdeskCategories.siteId, siteId), eq(helpdeskCategories.id, id)));
  if (!row) throw new AppError('helpdesk_category_not_found', `No help desk category "${id}".`);
  return row;
}

export function createCategory(
  db: Executor,
  siteId: string,
  input: { name: string; description?: string | undefined },
): Promise<CategoryRow> {
  const name = input.name.trim();
  return uniqueName(name, async () => {
    const [row] = await db
      .insert(helpdeskCategories)
      .values({ id: newId(), siteId, name, description: input.description ?? '' })
      .returning();
    return row!;
  });
}

export async function updateCategory(
  db: Executor,
  siteId: string,
  id: string,
  input: CategoryInput,
): Promise<CategoryRow> {
  await getCategory(db, siteId, id);
  const name = input.name?.trim();
  return uniqueName(name, async () => {
    const [row] = await db
      .update(helpdeskCategories)
      .set({
        ...(name !== undefined ? { name } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.archived !== undefined
          ? { archivedAt: input.archived ? sql`coalesce(archived_at, now())` : null }
          : {}),
        updatedAt: sql`now()`,
      })
      .where(and(eq(helpdeskCategories.siteId, siteId), eq(helpdeskCategories.id, id)))
      .returning();
    return row!;
  });
}

/** Deletes a category; its tickets keep going without one, its agents stop serving it. */
export async function deleteCategory(db: Executor, siteId: string, id: string): Promise<void> {
  await getCategory(db, siteId, id);
  await db.delete(helpdeskCategories).where(and(eq(helpdeskCategories.siteId, siteId), eq(helpdeskCategories.id, id)));
}

/** Open tickets (not solved or closed) per category of the site, by category id. */
export async function openTicketsPerCategory(db: Executor, siteId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ id: helpdeskTickets.categoryId, open: sql<number>`count(*)::int` })
    .from(helpdeskTickets)
    .where(
      and(
        eq(helpdeskTickets.siteId, siteId),
        isNotNull(helpdeskTickets.categoryId),
        inArray(helpdeskTickets.status, OPEN_STATUSES),
      ),
    )
    .groupBy(helpdeskTickets.categoryId);
  return new Map(rows.map((row) => [row.id!, row.open]));
}
