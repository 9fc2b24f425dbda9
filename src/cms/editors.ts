// Content editors: members an admin lets write entries and media in the editor (drafts, publishing,
// scheduling, deleting) without the rest of the admin area or the content model
// (docs/decisions/0048-cms-editor.md).
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import type { Param } from '../db/prepared.js';
import { findMember, findMemberByUsername } from '../forum/members.js';
import { cmsEditors } from './tables.js';

export interface EditorView {
  memberId: string;
  username: string;
  since: Date;
}

/** Whether the member is a content editor of the site, as an expression to select. */
export function editorExists(siteId: Param<string>, memberId: Param<string>): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ${cmsEditors} where ${and(eq(cmsEditors.siteId, siteId), eq(cmsEditors.memberId, memberId))})`;
}

export async function isEditor(db: Executor, siteId: string, memberId: string): Promise<boolean> {
  const [row] = await queryRows<{ yes: boolean }>(db, sql`select ${editorExists(siteId, memberId)} as yes`);
  return row?.yes === true;
}

export async function listEditors(db: Executor, siteId: string): Promise<EditorView[]> {
  const rows = await db
    .select()
    .from(cmsEditors)
    .where(eq(cmsEditors.siteId, siteId))
    .orderBy(asc(cmsEditors.createdAt));
  // A site has a handful of editors: one lookup each keeps the forum's tables the forum's.
  return Promise.all(
    rows.map(async (r) => ({
      memberId: r.memberId,
      username: (await findMember(db, siteId, r.memberId))?.username ?? r.memberId,
      since: r.createdAt,
    })),
  );
}

export type AddEditorResult = 'added' | 'already' | 'admin' | 'not_found';

/** Makes the member named `username` an editor; says why not when it cannot. */
export async function addEditor(db: Executor, siteId: string, username: string): Promise<AddEditorResult> {
  const member = await findMemberByUsername(db, siteId, username);
  if (!member || member.banned) return 'not_found';
  if (member.role === 'admin') return 'admin';
  const added = await db
    .insert(cmsEditors)
    .values({ memberId: member.id, siteId })
    .onConflictDoNothing()
    .returning({ memberId: cmsEditors.memberId });
  return added.length > 0 ? 'added' : 'already';
}

export async function removeEditor(db: Executor, siteId: string, memberId: string): Promise<boolean> {
  const removed = await db
    .delete(cmsEditors)
    .where(and(eq(cmsEditors.siteId, siteId), eq(cmsEditors.memberId, memberId)))
    .returning({ memberId: cmsEditors.memberId });
  return removed.length > 0;
}
