// `blume backup <dir>`: every table read in one snapshot (a REPEATABLE READ, read-only transaction,
// so the rows agree with each other while the server keeps writing), then the blobs those rows refer
// to. Runs where the database is: in this process on PostgreSQL, inside the running server on the
// embedded database (its queries wait while the tables are read). See decision 0088.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import type { BlobStore } from '../adapters/blobs/index.js';
import { readInstallation } from '../core/installation/service.js';
import { eachConcurrently } from '../lib/each-concurrently.js';
import { queryRows, type DatabaseHandle, type Transaction } from '../db/client.js';
import { migrationStatus, migrationTags } from '../db/migrate.js';
import { blobReferences, type BlobReference } from './blob-references.js';
import { ident, readCatalog, rowAsJson, type TableInfo } from './catalog.js';
import {
  BackupError,
  blobFile,
  blumeVersion,
  BACKUP_FORMAT,
  BACKUP_VERSION,
  MANIFEST_FILE,
  SECRET_KEY_FILE,
  tableFile,
  type BackupManifest,
} from './format.js';

interface BackupContext {
  database: DatabaseHandle;
  blobs: BlobStore;
  secretKey: string;
}

/** Rows fetched from the cursor at a time: bounds what one fetch holds in memory. */
const ROWS_PER_FETCH = 2000;
/** Blobs copied at once: each is a file read (local) or a request (S3). */
const BLOB_CONCURRENCY = 8;

interface BackupSummary {
  manifest: BackupManifest;
  bytes: number;
}

export async function backupTo(ctx: BackupContext, dir: string): Promise<BackupSummary> {
  await prepareFolder(dir);
  const snapshot = await ctx.database.db.transaction(async (tx) => {
    // The first statement fixes the snapshot; UTC makes timestamps read the same from either database.
    await tx.execute(sql`set transaction isolation level repeatable read, read only`);
    await tx.execute(sql`set local timezone = 'UTC'`);
    await tx.execute(sql`set local bytea_output = 'hex'`);
    const catalog = await readCatalog(tx);
    const { applied } = await migrationStatus({ ...ctx.database, db: tx as unknown as DatabaseHandle['db'] });
    const tables: BackupManifest['tables'] = [];
    for (const table of catalog.tables) tables.push(await writeTable(tx, table, dir));
    const sequences: BackupManifest['sequences'] = [];
    for (const name of catalog.sequences) {
      const [row] = await queryRows<{ value: string; called: boolean }>(
        tx,
        sql.raw(`select last_value::text as value, is_called as called from ${ident(name)}`),
      );
      sequences.push({ name, ...row! });
    }
    return {
      applied,
      tables,
      sequences,
      installation: (await readInstallation(tx)) ?? null,
      references: await blobReferences(tx),
    };
  });

  const blobs = await copyBlobs(ctx.blobs, snapshot.references, dir);
  await writeFile(path.join(dir, SECRET_KEY_FILE), `${ctx.secretKey}\n`, { mode: 0o600 });
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    blume: blumeVersion(),
    createdAt: new Date().toISOString(),
    source: { database: ctx.database.driver, blobs: ctx.blobs.driver },
    migrations: { applied: snapshot.applied, last: migrationTags()[snapshot.applied - 1] ?? '' },
    installation: snapshot.installation,
    tables: snapshot.tables,
    sequences: snapshot.sequences,
    blobs,
  };
  // Last: a folder without its manifest is not a backup, so an interrupted one cannot be restored.
  await writeFile(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return { manifest, bytes: blobs.reduce((sum, blob) => sum + blob.size, 0) };
}

/** The backup folder, new or empty, as private as the data it will hold. */
async function prepareFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await readdir(dir)).length > 0) throw new BackupError(`${dir} is not empty; back up into a new folder.`);
  await mkdir(path.join(dir, 'tables'), { mode: 0o700 });
  await mkdir(path.join(dir, 'blobs'), { mode: 0o700 });
}

async function writeTable(tx: Transaction, table: TableInfo, dir: string): Promise<BackupManifest['tables'][number]> {
  const file = tableFile(table.name);
  const out = await open(path.join(dir, file), 'wx', 0o600);
  const hash = createHash('sha256');
  let rows = 0;
  try {
    const order =
      table.primaryKey.length > 0 ? ` order by ${table.primaryKey.map((c) => `t.${ident(c)}`).join(', ')}` : '';
    await tx.execute(
      sql.raw(
        `declare backup_rows no scroll cursor for select ${rowAsJson(table)}::text as line from ${ident(table.name)} t${order}`,
      ),
    );
    for (;;) {
      const batch = await queryRows<{ line: string }>(tx, sql.raw(`fetch ${ROWS_PER_FETCH} from backup_rows`));
      if (batch.length === 0) break;
      const text = `${batch.map((row) => row.line).join('\n')}\n`;
      hash.update(text);
      await out.write(text);
      rows += batch.length;
    }
    await tx.execute(sql`close backup_rows`);
  } finally {
    await out.close();
  }
  return { name: table.name, file, rows, sha256: hash.digest('hex') };
}

async function copyBlobs(store: BlobStore, references: BlobReference[], dir: string): Promise<BackupManifest['blobs']> {
  const copied: BackupManifest['blobs'] = [];
  const missing: string[] = [];
  await eachConcurrently(references, BLOB_CONCURRENCY, async (reference) => {
    const body = await store.get(reference.key);
    if (!body) {
      if (reference.required) missing.push(reference.key);
      return;
    }
    const target = path.join(dir, blobFile(reference.key));
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const hash = createHash('sha256');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    await pipeline(body, measure, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
    copied.push({ key: reference.key, size, sha256: hash.digest('hex') });
  });
  if (missing.length > 0) {
    throw new BackupError(
      `${missing.length} blob(s) the database refers to were deleted while the backup ran (a prune or a delete at the same time?), for example ${missing[0]}; run the backup again into a new folder.`,
    );
  }
  return copied.sort((a, b) => a.key.localeCompare(b.key));
}
