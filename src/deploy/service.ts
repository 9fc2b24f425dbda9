// Releases and aliases: the live and stage pointers of a site, moved only by promote, rollback and
// stage calls. Each change locks the site's alias row, so concurrent calls apply one after another.
import { and, desc, eq, inArray, max, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { randomAlnum } from '../lib/ids.js';
import { previewLink } from './preview-links.js';
import { pointerEpoch, promotions, releases, siteAliases, type ReleaseRow, type SiteAliasRow } from './tables.js';

export type { ReleaseRow, SiteAliasRow };

const PREVIEW_PASSWORD_LENGTH = 24;

/** The site's alias row, read only (the edge's path; ensureAliases writes). */
export async function findAliases(db: Executor, siteId: string): Promise<SiteAliasRow | undefined> {
  const [row] = await db.select().from(siteAliases).where(eq(siteAliases.siteId, siteId));
  return row;
}

/** The alias row of a site, created with a fresh preview password the first time it is needed. */
export async function ensureAliases(db: Executor, siteId: string): Promise<SiteAliasRow> {
  await db
    .insert(siteAliases)
    .values({ siteId, previewPassword: randomAlnum(PREVIEW_PASSWORD_LENGTH) })
    .onConflictDoNothing();
  const [row] = await db.select().from(siteAliases).where(eq(siteAliases.siteId, siteId));
  return row!;
}

/** Locks the site's alias row for a change, and counts the change in the pointer epoch every node reads. */
async function lockAliases(tx: Executor, siteId: string): Promise<SiteAliasRow> {
  await ensureAliases(tx, siteId);
  await tx
    .update(pointerEpoch)
    .set({ value: sql`${pointerEpoch.value} + 1` })
    .where(eq(pointerEpoch.id, 1));
  const [row] = await tx.select().from(siteAliases).where(eq(siteAliases.siteId, siteId)).for('update');
  return row!;
}

export async function findRelease(db: Executor, siteId: string, releaseId: string): Promise<ReleaseRow | undefined> {
  const [row] = await db
    .select()
    .from(releases)
    .where(and(eq(releases.id, releaseId), eq(releases.siteId, siteId)));
  return row;
}

async function requireRelease(db: Executor, siteId: string, releaseId: string): Promise<ReleaseRow> {
  const row = await findRelease(db, siteId, releaseId);
  if (!row) throw new AppError('release_not_found', `Site "${siteId}" has no release "${releaseId}".`);
  return row;
}

export interface DeploySummary {
  live: string | null;
  lastDeployAt: Date | null;
}

/** For each of these sites that has releases: the live release and when the newest one was made. */
export async function deploySummaries(db: Executor, siteIds: string[]): Promise<Map<string, DeploySummary>> {
  const out = new Map<string, DeploySummary>();
  if (siteIds.length === 0) return out;
  const newest = await db
    .select({ siteId: releases.siteId, at: max(releases.createdAt) })
    .from(releases)
    .where(inArray(releases.siteId, siteIds))
    .groupBy(releases.siteId);
  const live = await db
    .select({ siteId: siteAliases.siteId, id: siteAliases.liveReleaseId })
    .from(siteAliases)
    .where(inArray(siteAliases.siteId, siteIds));
  for (const row of newest) out.set(row.siteId, { live: null, lastDeployAt: row.at });
  for (const row of live)
    out.set(row.siteId, { lastDeployAt: out.get(row.siteId)?.lastDeployAt ?? null, live: row.id });
  return out;
}

export async function listReleases(
  db: Executor,
  siteId: string,
): Promise<{ releases: ReleaseRow[]; aliases: SiteAliasRow }> {
  const aliases = await ensureAliases(db, siteId);
  const rows = await db
    .select()
    .from(releases)
    .where(eq(releases.siteId, siteId))
    .orderBy(desc(releases.createdAt), desc(releases.id));
  return { releases: rows, aliases };
}

/** The release a rollback would make live now, from the promotion log; null when there is none. */
export async function rollbackTarget(db: Executor, aliases: SiteAliasRow): Promise<string | null> {
  if (aliases.livePromotionId === null) return null;
  const [head] = await db.select().from(promotions).where(eq(promotions.id, aliases.livePromotionId));
  if (!head?.previousId) return null;
  const [previous] = await db
    .select({ releaseId: promotions.releaseId })
    .from(promotions)
    .where(eq(promotions.id, head.previousId));
  return previous?.releaseId ?? null;
}

export interface AliasChange {
  release: ReleaseRow | undefined;
  aliases: SiteAliasRow;
}

/** The pointer epoch: moves with every alias change of any site. */
export async function readPointerEpoch(db: Executor): Promise<number> {
  const [row] = await db.select({ value: pointerEpoch.value }).from(pointerEpoch).where(eq(pointerEpoch.id, 1));
  return row?.value ?? 0;
}

/**
 * The live release a change was conditioned on (`If-Match`): `null` for "no release is live".
 * Undefined means unconditional.
 */
export type ExpectedLive = string | null | undefined;

function checkExpectedLive(current: SiteAliasRow, expected: ExpectedLive): void {
  if (expected === undefined || current.liveReleaseId === expected) return;
  throw new AppError(
    'live_release_changed',
    `The live release is now "${current.liveReleaseId ?? 'none'}", not the one If-Match names; read the releases again and decide.`,
    {
      live_release: current.liveReleaseId,
    },
  );
}

/** Makes a release live: one pointer swap and one log row in one transaction. */
export async function promoteRelease(
  db: Executor,
  siteId: string,
  releaseId: string,
  expectedLive?: ExpectedLive,
): Promise<AliasChange> {
  return db.transaction(async (tx) => {
    const current = await lockAliases(tx, siteId);
    checkExpectedLive(current, expectedLive);
    const release = await requireRelease(tx, siteId, releaseId);
    if (!release.promotable)
      throw new AppError(
        'release_not_promotable',
        `Release "${releaseId}" is preview-only (a build of another branch).`,
      );
    // Promoting what is already live changes nothing and must not add a rollback step.
    if (current.liveReleaseId === release.id) return { release, aliases: current };
    const [log] = await tx
      .insert(promotions)
      .values({ siteId, releaseId: release.id, action: 'promote', previousId: current.livePromotionId })
      .returning({ id: promotions.id });
    const [aliases] = await tx
      .update(siteAliases)
      .set({ liveReleaseId: release.id, livePromotionId: log!.id, updatedAt: new Date() })
      .where(eq(siteAliases.siteId, siteId))
      .returning();
    return { release, aliases: aliases! };
  });
}

/** Live returns to the release that was live before the current one; see the promotions table. */
export async function rollbackRelease(db: Executor, siteId: string, expectedLive?: ExpectedLive): Promise<AliasChange> {
  return db.transaction(async (tx) => {
    const current = await lockAliases(tx, siteId);
    checkExpectedLive(current, expectedLive);
    const none = () =>
      new AppError('no_previous_release', `Site "${siteId}" has no earlier live release to return to.`);
    if (current.livePromotionId === null) throw none();
    const [head] = await tx.select().from(promotions).where(eq(promotions.id, current.livePromotionId));
    if (!head?.previousId) throw none();
    const [previous] = await tx.select().from(promotions).where(eq(promotions.id, head.previousId));
    if (!previous) throw none();
    const [log] = await tx
      .insert(promotions)
      .values({ siteId, releaseId: previous.releaseId, action: 'rollback', previousId: previous.previousId })
      .returning({ id: promotions.id });
    const [aliases] = await tx
      .update(siteAliases)
      .set({ liveReleaseId: previous.releaseId, livePromotionId: log!.id, updatedAt: new Date() })
      .where(eq(siteAliases.siteId, siteId))
      .returning();
    return { release: await findRelease(tx, siteId, previous.releaseId), aliases: aliases! };
  });
}

export async function setStage(db: Executor, siteId: string, releaseId: string): Promise<AliasChange> {
  return db.transaction(async (tx) => {
    await lockAliases(tx, siteId);
    const release = await requireRelease(tx, siteId, releaseId);
    const [aliases] = await tx
      .update(siteAliases)
      .set({ stageReleaseId: release.id, updatedAt: new Date() })
      .where(eq(siteAliases.siteId, siteId))
      .returning();
    return { release, aliases: aliases! };
  });
}

export async function clearStage(db: Executor, siteId: string): Promise<SiteAliasRow> {
  return db.transaction(async (tx) => {
    await lockAliases(tx, siteId);
    const [aliases] = await tx
      .update(siteAliases)
      .set({ stageReleaseId: null, updatedAt: new Date() })
      .where(eq(siteAliases.siteId, siteId))
      .returning();
    return aliases!;
  });
}

/**
 * A new preview password: the old one, and every shared preview link (signed over the password,
 * preview-links.ts), stop opening previews and stage once each node has the new alias row.
 */
export async function replacePreviewPassword(db: Executor, siteId: string): Promise<SiteAliasRow> {
  return db.transaction(async (tx) => {
    await lockAliases(tx, siteId);
    const [aliases] = await tx
      .update(siteAliases)
      .set({ previewPassword: randomAlnum(PREVIEW_PASSWORD_LENGTH), updatedAt: new Date() })
      .where(eq(siteAliases.siteId, siteId))
      .returning();
    return aliases!;
  });
}

/** A signed link to a release's preview that works for `seconds` without the preview password. */
export async function makePreviewLink(
  db: Executor,
  secretKey: string,
  siteId: string,
  releaseId: string,
  previewUrl: string,
  seconds: number,
): Promise<{ release: ReleaseRow; url: string; expiresAt: Date }> {
  const release = await requireRelease(db, siteId, releaseId);
  const aliases = await ensureAliases(db, siteId);
  const link = previewLink(secretKey, { siteId, releaseId, password: aliases.previewPassword }, previewUrl, seconds);
  return { release, ...link };
}
