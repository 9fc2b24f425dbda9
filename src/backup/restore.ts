// `blume restore <dir>`: a backup into a fresh install of either kind (embedded or PostgreSQL, local
// or S3 blobs). The schema is migrated to the backup's level, the blobs are copied, the rows are
// loaded in one transaction with the tables' own triggers off (the counters they keep are in the
// rows already), the sequences are set, and then the migrations after the backup's level run on the
// restored data as they would have on the original, and the content types' own indexes are made
// again (DDL, not rows). See decision 0088.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import { recreateTypeIndexes } from '../cms/content-types.js';
import { modeMismatch, type RunMode } from '../core/installation/service.js';
import { eachConcurrently } from '../lib/each-concurrently.js';
import { queryRows, type DatabaseHandle, type Transaction } from '../db/client.js';
import { migrationStatus, migrationTags, runFirstMigrations, runMigrations } from '../db/migrate.js';
import { columnsFromJson, ident, readCatalog, type TableInfo } from './catalog.js';
import { BackupError, blobFile, readVerifiedManifest, type BackupManifest } from './format.js';

interface RestoreContext {
  database: DatabaseHandle;
  blobs: BlobStore;
  /** What the restoring command runs as; it must be the backup's installation mode. */
  mode: RunMode;
}

/**
 * Tables every install fills by itself (migrations and the install steps at the first start): a
 * database with rows only there counts as fresh, and the restore replaces them.
 */
const INSTALL_TABLES = new Set(['installation', 'plan_features', 'deploy_pointer_epoch']);
/** Rows (or bytes of JSON) per INSERT. */
const ROWS_PER_INSERT = 1000;
const BYTES_PER_INSERT = 4 * 1024 * 1024;
const BLOB_CONCURRENCY = 8;

interface RestoreSummary {
  manifest: BackupManifest;
  /** Migrations that ran after the rows were loaded (the backup came from an older Blume). */
  laterMigrations: number;
}

export async function restoreFrom(ctx: RestoreContext, dir: string): Promise<RestoreSummary> {
  const manifest = await readVerifiedManifest(dir);
  const level = schemaLevel(manifest);
  const recorded = manifest.installation;
  const mismatch = recorded && modeMismatch(recorded, ctx.mode);
  if (mismatch) throw new BackupError(mismatch.replace('This installation', 'The backed-up installation'));
  await assertFresh(ctx.database, level);
  await assertFreshBlobs(ctx.blobs, manifest);

  await runFirstMigrations(ctx.database, level);
  // Blobs before rows: if anything fails after, the install is still empty and the restore can run again.
  await copyBlobs(ctx.blobs, manifest, dir);
  await ctx.database.db.transaction(async (tx) => {
    const catalog = await readCatalog(tx);
    const tables = new Map(catalog.tables.map((t) => [t.name, t]));
    for (const table of catalog.tables)
      await tx.execute(sql.raw(`alter table ${ident(table.name)} disable trigger user`));
    for (const table of [...catalog.tables].reverse()) await tx.execute(sql.raw(`delete from ${ident(table.name)}`));
    for (const entry of manifest.tables) {
      const table = tables.get(entry.name);
      if (!table)
        throw new BackupError(`The backup has a table "${entry.name}" that the schema at its own level does not have.`);
      const loaded = await loadTable(tx, table, path.join(dir, entry.file));
      if (loaded !== entry.rows)
        throw new BackupError(`${entry.file} holds ${loaded} rows; the manifest says ${entry.rows}.`);
    }
    for (const sequence of manifest.sequences) {
      await tx.execute(
        sql`select setval(${ident(sequence.name)}::regclass, ${sequence.value}::bigint, ${sequence.called})`,
      );
    }
    for (const table of catalog.tables)
      await tx.execute(sql.raw(`alter table ${ident(table.name)} enable trigger user`));
  });
  const laterMigrations = await runMigrations(ctx.database);
  await recreateTypeIndexes(ctx.database.db);
  return { manifest, laterMigrations };
}

/** How many of this Blume's migrations the backup's rows are shaped by. */
function schemaLevel(manifest: BackupManifest): number {
  if (manifest.migrations.applied === 0)
    throw new BackupError('The backup was made before the database had a schema; there is nothing to restore.');
  const tags = migrationTags();
  if (tags[manifest.migrations.applied - 1] !== manifest.migrations.last) {
    throw new BackupError(
      `The backup's schema ends with migration ${manifest.migrations.last}, which this Blume does not have: restore it with Blume ${manifest.blume} or newer.`,
    );
  }
  return manifest.migrations.applied;
}

/** Refuses a database that holds data (or a schema newer than the backup's): restore makes an install, it does not merge. */
async function assertFresh(database: DatabaseHandle, level: number): Promise<void> {
  const { applied } = await migrationStatus(database);
  if (applied > level) {
    throw new BackupError(
      `The database is already at a newer schema (${applied} migrations) than the backup (${level}); restore into an empty database.`,
    );
  }
  if (applied === 0) return;
  const { tables } = await readCatalog(database.db);
  const filled: string[] = [];
  for (const table of tables) {
    if (INSTALL_TABLES.has(table.name)) continue;
    const [row] = await queryRows<{ filled: boolean }>(
      database.db,
      sql.raw(`select exists (select 1 from ${ident(table.name)}) as filled`),
    );
    if (row?.filled) filled.push(table.name);
  }
  if (filled.length > 0) {
    throw new BackupError(
      `The database already holds data (in ${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', ...' : ''}); restore into an empty database (a new DATABASE_URL database, or a new BLUME_DATA_DIR).`,
    );
  }
}

/**
 * Refuses a blob store holding a blob the backup does not have: it belongs to another install. The
 * backup's own blobs may be there already, left by a restore that failed after copying them.
 */
async function assertFreshBlobs(store: BlobStore, manifest: BackupManifest): Promise<void> {
  const expected = new Set(manifest.blobs.map((blob) => blob.key));
  const foreign: string[] = [];
  for await (const key of store.list()) {
    if (expected.has(key)) continue;
    foreign.push(key);
    if (foreign.length > 3) break;
  }
  if (foreign.length > 0) {
    throw new BackupError(
      `The ${store.driver} blob store already holds blobs this backup does not have (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}); restore into an empty one (a new BLUME_DATA_DIR, or a new bucket or BLUME_S3_PREFIX).`,
    );
  }
}

async function copyBlobs(store: BlobStore, manifest: BackupManifest, dir: string): Promise<void> {
  await eachConcurrently(manifest.blobs, BLOB_CONCURRENCY, (blob) =>
    store.put(blob.key, createReadStream(path.join(dir, blobFile(blob.key))), blob.size),
  );
}

/** Loads a table file in batches; each INSERT turns its JSON rows back into typed columns. */
async function loadTable(tx: Transaction, table: TableInfo, file: string): Promise<number> {
  const columns = table.columns.map(ident).join(', ');
  const insert = `insert into ${ident(table.name)} (${columns})${table.identityAlways ? ' overriding system value' : ''} select ${columnsFromJson(table).join(', ')} from jsonb_array_elements(`;
  let batch: string[] = [];
  let bytes = 0;
  let rows = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    await tx.execute(
      sql`${sql.raw(insert)}${`[${batch.join(',')}]`}::jsonb) r, jsonb_populate_record(null::${sql.raw(ident(table.name))}, r.value) p`,
    );
    rows += batch.length;
    batch = [];
    bytes = 0;
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue;
    batch.push(line);
    bytes += line.length;
    if (batch.length >= ROWS_PER_INSERT || bytes >= BYTES_PER_INSERT) await flush();
  }
  await flush();
  return rows;
}
