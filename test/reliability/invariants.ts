// What must hold in a deployment's database and blob folder whatever happened before (a kill -9, a
// race, a cut dependency): the invariants the reliability suite checks after every trial.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { blobKey } from '../../src/deploy/blobs.js';
import { builds } from '../../src/deploy/builds/tables.js';
import { blobIntents, promotions, releaseFiles, releases, siteAliases } from '../../src/deploy/tables.js';
import { queryRows, type Executor } from '../../src/db/client.js';

/** One promotion-log row, oldest first. */
export interface LogRow {
  id: number;
  releaseId: string;
  action: 'promote' | 'rollback';
  previousId: number | null;
}

export async function promotionLog(db: Executor, siteId: string): Promise<LogRow[]> {
  return queryRows<LogRow>(
    db,
    sql`select ${promotions.id} as "id", ${promotions.releaseId} as "releaseId", ${promotions.action} as "action", ${promotions.previousId} as "previousId"
        from ${promotions} where ${promotions.siteId} = ${siteId} order by ${promotions.id}`,
  ).then((rows) =>
    rows.map((row) => ({
      ...row,
      id: Number(row.id),
      previousId: row.previousId === null ? null : Number(row.previousId),
    })),
  );
}

/** The live chain the log describes from its head: the live release first, then what rollbacks return to. */
export function chainFrom(log: LogRow[], headId: number | null): string[] {
  const byId = new Map(log.map((row) => [row.id, row]));
  const chain: string[] = [];
  for (let id = headId; id !== null; id = byId.get(id)?.previousId ?? null) {
    const row = byId.get(id);
    if (!row) throw new Error(`promotion ${id} is named in the chain but missing from the log`);
    chain.push(row.releaseId);
  }
  return chain;
}

/**
 * Problems found, as sentences (empty when everything holds):
 * - a release row whose file rows do not add up to its file count, or whose blobs are missing;
 * - an alias whose live release is not the release of the log row it names;
 * - a log row whose predecessor is missing, not older, or of another site;
 * - a succeeded build without its release, or a release of a build that did not succeed.
 * `blobsDir` is the local blob store's folder (blobs are checked there).
 */
export async function deploymentProblems(db: Executor, blobsDir: string): Promise<string[]> {
  const problems: string[] = [];
  const partial = await queryRows<{ id: string; expected: number; found: number }>(
    db,
    sql`select r.id, r.file_count as expected, count(f.path)::int as found from ${releases} r left join ${releaseFiles} f on f.release_id = r.id
        group by r.id, r.file_count having count(f.path) <> r.file_count`,
  );
  for (const row of partial) problems.push(`release ${row.id} has ${row.found} of its ${row.expected} files`);
  const hashes = await queryRows<{ hash: string; release: string }>(
    db,
    sql`select distinct on (hash) hash, release_id as release from ${releaseFiles}`,
  );
  for (const row of hashes)
    if (!existsSync(path.join(blobsDir, blobKey(row.hash))))
      problems.push(`release ${row.release} names blob ${row.hash}, which is not in the store`);

  const aliases = await queryRows<{
    site: string;
    live: string | null;
    head: number | null;
    headRelease: string | null;
  }>(
    db,
    sql`select a.site_id as site, a.live_release_id as live, a.live_promotion_id as head, p.release_id as "headRelease"
        from ${siteAliases} a left join ${promotions} p on p.id = a.live_promotion_id`,
  );
  for (const row of aliases) {
    if (row.head !== null && row.headRelease !== row.live)
      problems.push(`site ${row.site}: live is ${row.live} but the log head ${row.head} names ${row.headRelease}`);
    if (row.head === null && row.live !== null)
      problems.push(`site ${row.site}: live is ${row.live} without a log row`);
  }
  const broken = await queryRows<{ id: number; previous: number }>(
    db,
    sql`select p.id, p.previous_id as previous from ${promotions} p left join ${promotions} q on q.id = p.previous_id
        where p.previous_id is not null and (q.id is null or q.id >= p.id or q.site_id <> p.site_id)`,
  );
  for (const row of broken)
    problems.push(`promotion ${row.id} names ${row.previous} before it, which is missing, newer or of another site`);

  const lostReleases = await queryRows<{ id: string }>(
    db,
    sql`select b.id from ${builds} b left join ${releases} r on r.id = b.release_id where b.state = 'succeeded' and r.id is null`,
  );
  for (const row of lostReleases) problems.push(`build ${row.id} succeeded without a release`);
  const strays = await queryRows<{ id: string; state: string }>(
    db,
    sql`select r.id, b.state from ${releases} r join ${builds} b on b.id = r.build_id where b.state <> 'succeeded'`,
  );
  for (const row of strays) problems.push(`release ${row.id} comes from a build that ended ${row.state}`);
  return problems;
}

/**
 * Content blobs in the store that no release references: what an upload killed between storing its
 * blobs and committing its release leaves (counted, not a failure: nothing serves them).
 */
/**
 * Blobs in the store that no release references: `untracked` ones are not named by an upload's
 * intent either, so no sweep would ever remove them (decision 0055); there must be none.
 */
export async function unreferencedBlobs(
  db: Executor,
  blobsDir: string,
): Promise<{ unreferenced: number; untracked: number }> {
  const referenced = new Set(
    (await queryRows<{ hash: string }>(db, sql`select distinct hash from ${releaseFiles}`)).map((row) => row.hash),
  );
  const intended = new Set(
    (await db.select({ hashes: blobIntents.hashes }).from(blobIntents)).flatMap((row) => row.hashes),
  );
  const stored = (await filesUnder(path.join(blobsDir, 'sha256')))
    .map((name) => path.basename(name))
    .filter((name) => /^[0-9a-f]{64}$/.test(name));
  const unreferenced = stored.filter((hash) => !referenced.has(hash));
  return { unreferenced: unreferenced.length, untracked: unreferenced.filter((hash) => !intended.has(hash)).length };
}

/** Files under `dir` (relative paths), for looking for what a dead process left. */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
