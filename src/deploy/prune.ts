// Retention: old releases of a site are deleted, keeping the newest `keep`, the live and stage
// releases, and the live release's rollback chain `keep` steps deep, so rollback keeps working.
// Blobs no remaining release references are removed under the blob lock (see blobs.ts).
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import type { Database } from '../db/client.js';
import { deleteBlob, lockBlobs, unreferencedHashes } from './blobs.js';
import type { EdgeCache } from './edge-cache.js';
import { promotions, releaseFiles, releases, siteAliases } from './tables.js';

interface PruneOutcome {
  deletedReleases: string[];
  deletedBlobs: number;
}

async function protectedReleases(db: Database, siteId: string, keep: number): Promise<Set<string>> {
  const keepIds = new Set<string>();
  const newest = await db
    .select({ id: releases.id })
    .from(releases)
    .where(eq(releases.siteId, siteId))
    .orderBy(desc(releases.createdAt), desc(releases.id))
    .limit(keep);
  for (const row of newest) keepIds.add(row.id);
  const [aliases] = await db.select().from(siteAliases).where(eq(siteAliases.siteId, siteId));
  if (aliases?.liveReleaseId) keepIds.add(aliases.liveReleaseId);
  if (aliases?.stageReleaseId) keepIds.add(aliases.stageReleaseId);
  let step = aliases?.livePromotionId ?? null;
  for (let depth = 0; step !== null && depth <= keep; depth++) {
    const [row] = await db.select().from(promotions).where(eq(promotions.id, step));
    if (!row) break;
    keepIds.add(row.releaseId);
    step = row.previousId;
  }
  return keepIds;
}

export async function pruneReleases(
  db: Database,
  blobs: BlobStore,
  cache: EdgeCache,
  siteId: string,
  keep: number,
): Promise<PruneOutcome> {
  const keepIds = await protectedReleases(db, siteId, Math.max(1, keep));
  const all = await db.select({ id: releases.id }).from(releases).where(eq(releases.siteId, siteId));
  const doomed = all.map((row) => row.id).filter((id) => !keepIds.has(id));
  if (doomed.length === 0) return { deletedReleases: [], deletedBlobs: 0 };

  const deletedBlobs = await db.transaction(async (tx) => {
    await lockBlobs(tx);
    const hashes = await tx
      .selectDistinct({ hash: releaseFiles.hash })
      .from(releaseFiles)
      .where(inArray(releaseFiles.releaseId, doomed));
    await tx.delete(releases).where(and(eq(releases.siteId, siteId), inArray(releases.id, doomed)));
    const orphans = await unreferencedHashes(
      tx,
      hashes.map((row) => row.hash),
    );
    // Deleting inside the lock keeps a concurrent upload from borrowing a blob that is going away.
    for (const hash of orphans) await deleteBlob(blobs, hash);
    return orphans.length;
  });
  await cache.releasesDeleted(doomed);
  return { deletedReleases: doomed, deletedBlobs };
}

interface SitePruneOutcome extends PruneOutcome {
  siteId: string;
}

/**
 * Prunes the named sites, or every site that has releases. Sites are done one after the other: each
 * takes the blob lock, and a long run must not hold it for all of them at once.
 */
export async function pruneSites(
  db: Database,
  blobs: BlobStore,
  cache: EdgeCache,
  sites: string[] | 'all',
  keep: number,
): Promise<SitePruneOutcome[]> {
  const withReleases = await db
    .selectDistinct({ siteId: releases.siteId })
    .from(releases)
    .where(sites === 'all' ? undefined : inArray(releases.siteId, sites))
    .orderBy(releases.siteId);
  const outcomes: SitePruneOutcome[] = [];
  for (const { siteId } of withReleases)
    outcomes.push({ siteId, ...(await pruneReleases(db, blobs, cache, siteId, keep)) });
  return outcomes;
}
