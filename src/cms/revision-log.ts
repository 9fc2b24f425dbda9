// The revision every entry write records, in the write's transaction (docs/decisions/0139-cms-revisions-and-preview-links.md):
// the entry as saved and who saved it; past the last MAX_REVISIONS of an entry the oldest go.
import { and, eq, lte } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import type { CmsCaller } from './policy.js';
import { cmsEntryRevisions, type EntryRow, type EntryRevisionRow } from './tables.js';

/** Revisions kept per entry (Payload's `maxPerDoc` default); each save past it drops the oldest. */
export const MAX_REVISIONS = 100;

/** Who saved a revision. */
interface RevisionAuthor {
  kind: EntryRevisionRow['authorKind'];
  id: string;
  name: string;
}

/** What a write records beside the entry: its author, and the revision it brings back when it is a restore. */
export interface RevisionNote {
  author: RevisionAuthor;
  restoredFrom?: number | undefined;
}

/** The author a caller's writes are recorded under: a member in the editor, an account's session, an API key. */
export function authorOf(caller: CmsCaller): RevisionAuthor {
  const kind = caller.kind === 'api_key' ? 'api_key' : caller.member ? 'member' : 'account';
  return { kind, id: caller.id, name: caller.name };
}

/** Records `row` as saved by `note.author`, and drops the entry's revisions past the last MAX_REVISIONS. */
export async function recordRevision(tx: Executor, row: EntryRow, note: RevisionNote): Promise<void> {
  await tx.insert(cmsEntryRevisions).values({
    entryId: row.id,
    siteId: row.siteId,
    version: row.version,
    slug: row.slug,
    status: row.status,
    publishedAt: row.publishedAt,
    data: row.data,
    authorKind: note.author.kind,
    authorId: note.author.id,
    authorName: note.author.name,
    restoredFrom: note.restoredFrom ?? null,
    createdAt: row.updatedAt,
  });
  if (row.version > MAX_REVISIONS)
    await tx
      .delete(cmsEntryRevisions)
      .where(and(eq(cmsEntryRevisions.entryId, row.id), lte(cmsEntryRevisions.version, row.version - MAX_REVISIONS)));
}
