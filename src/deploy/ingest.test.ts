// Ingest against the blob stores directly: an S3-compatible store (no renames, every blob streamed
// from its spool) and a folder of build output (variants made after spooling, large files streamed).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import S3rver from 's3rver';
import { siteArchive } from '../../test/helpers/archives.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { createLocalBlobStore } from '../adapters/blobs/local.js';
import { createS3BlobStore } from '../adapters/blobs/s3.js';
import type { BlobStore } from '../adapters/blobs/types.js';
import { createSite } from '../core/sites/service.js';
import { DEFAULT_ARCHIVE_LIMITS } from './archive.js';
import { blobKey, sweepBlobIntents, UploadBlobs } from './blobs.js';
import { ARCHIVE_ORIGIN, ingestArchive, ingestFolder, type IngestContext } from './ingest.js';
import { blobIntents, releaseFiles } from './tables.js';

const sha256 = (content: Buffer): string => createHash('sha256').update(content).digest('hex');

/** Text larger than the in-memory limit, so its variants are streamed. */
const largeScript = (name: string) =>
  Buffer.from(`export const ${name} = (question) => question.length * 42;\n`.repeat(30_000));
const page = (title: string) => Buffer.from(`<!doctype html><title>${title}</title>` + '<p>welcome</p>'.repeat(300));

for (const database of testDatabases) {
  describe(`ingest into blob stores [${database}]`, () => {
    let db: TestDatabase;
    let dir: string;

    before(async () => {
      db = await createTestDatabase(database);
      dir = await mkdtemp(path.join(tmpdir(), 'blume-ingest-'));
      await createSite(db.handle.db, null, { id: 'shop', kind: 'static' });
    });
    after(async () => {
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    });

    async function rowsOf(releaseId: string) {
      return db.handle.db.select().from(releaseFiles).where(eq(releaseFiles.releaseId, releaseId));
    }

    it('streams every blob and variant into an S3-compatible store', async () => {
      const server = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: path.join(dir, 's3'),
        configureBuckets: [{ name: 'blume', configs: [] }],
      });
      const { port } = (await server.run()) as { port: number };
      try {
        const blobs: BlobStore = await createS3BlobStore({
          bucket: 'blume',
          region: 'us-east-1',
          endpoint: `http://127.0.0.1:${port}`,
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
          forcePathStyle: true,
          prefix: '',
        });
        const ctx: IngestContext = {
          db: db.handle.db,
          blobs,
          limits: DEFAULT_ARCHIVE_LIMITS,
          tmpDir: path.join(dir, 'tmp-s3'),
        };
        const files = { 'index.html': page('S3'), 'app.js': largeScript('s3'), 'logo.png': Buffer.alloc(500, 3) };
        const release = await ingestArchive(ctx, 'shop', Readable.from(await siteArchive(files)), ARCHIVE_ORIGIN);
        assert.equal(release.newBlobs, 3);
        const rows = new Map((await rowsOf(release.id)).map((row) => [row.path, row]));
        for (const sitePath of ['index.html', 'app.js'] as const) {
          const content = files[sitePath];
          const row = rows.get(sitePath)!;
          assert.deepEqual(await blobs.read(blobKey(row.hash)), content);
          const br = (await blobs.read(blobKey(row.hash, 'br')))!;
          assert.equal(br.length, row.brotliSize);
          assert.deepEqual(brotliDecompressSync(br), content);
          assert.deepEqual(gunzipSync((await blobs.read(blobKey(row.hash, 'gzip')))!), content);
        }
        assert.equal(rows.get('logo.png')!.brotliSize, null);
        assert.equal(await blobs.has(blobKey(rows.get('logo.png')!.hash, 'br')), false);
      } finally {
        await server.close();
      }
    });

    it('makes the variants of a folder, leaving its own files as they are', async () => {
      const blobs = createLocalBlobStore(path.join(dir, 'blobs'));
      const folder = path.join(dir, 'out');
      await mkdir(path.join(folder, 'assets'), { recursive: true });
      // The site's own `app.js.br` sits where a careless variant of the large app.js would go.
      const ownBrotli = Buffer.from('not a variant: a file of the site');
      const files = { 'index.html': page('Folder'), 'assets/app.js': largeScript('folder') };
      await writeFile(path.join(folder, 'assets/app.js'), files['assets/app.js']);
      await writeFile(path.join(folder, 'assets/app.js.br'), ownBrotli);
      await writeFile(path.join(folder, 'index.html'), files['index.html']);
      const ctx: IngestContext = {
        db: db.handle.db,
        blobs,
        limits: DEFAULT_ARCHIVE_LIMITS,
        tmpDir: path.join(dir, 'tmp-folder'),
      };
      const release = await ingestFolder(ctx, 'shop', folder, {
        source: 'static',
        promotable: true,
        buildId: null,
        git: null,
      });
      const rows = new Map((await rowsOf(release.id)).map((row) => [row.path, row]));
      assert.equal(rows.get('assets/app.js.br')!.hash, sha256(ownBrotli));
      assert.deepEqual(await blobs.read(blobKey(sha256(ownBrotli))), ownBrotli);
      for (const sitePath of ['index.html', 'assets/app.js'] as const) {
        const content = files[sitePath];
        const row = rows.get(sitePath)!;
        assert.equal(row.hash, sha256(content));
        assert.deepEqual(brotliDecompressSync(await readFile(blobs.localPath!(blobKey(row.hash, 'br')))), content);
        assert.deepEqual(gunzipSync(await readFile(blobs.localPath!(blobKey(row.hash, 'gzip')))), content);
      }
    });

    it('names the blobs an upload stores until it commits or cleans up, so a sweep can remove what a dead one left', async () => {
      const blobs = createLocalBlobStore(path.join(dir, 'blobs-sweep'));
      const ctx: IngestContext = {
        db: db.handle.db,
        blobs,
        limits: DEFAULT_ARCHIVE_LIMITS,
        tmpDir: path.join(dir, 'tmp-sweep'),
      };
      const intents = () => db.handle.db.select().from(blobIntents);

      const kept = await ingestArchive(
        ctx,
        'shop',
        Readable.from(await siteArchive({ 'index.html': page('kept') })),
        ARCHIVE_ORIGIN,
      );
      assert.deepEqual(await intents(), [], 'a committed upload leaves no intent');
      const refused = { ...ARCHIVE_ORIGIN, onCommit: () => Promise.reject(new Error('refused at commit')) };
      const lost = Buffer.from('<p>an upload refused at its commit</p>');
      await assert.rejects(
        ingestArchive(ctx, 'shop', Readable.from(await siteArchive({ 'index.html': lost })), refused),
        /refused at commit/,
      );
      assert.deepEqual(await intents(), [], 'a refused upload removes its blobs and its intent');
      assert.equal(await blobs.has(blobKey(sha256(lost))), false);

      // Two uploads that died after storing: one two hours ago, one just now. Each also names a
      // blob a committed release holds, which no sweep may remove.
      const [keptRow] = await rowsOf(kept.id);
      const died = async (content: Buffer, ageHours: number): Promise<string> => {
        const upload = new UploadBlobs();
        await upload.intend(db.handle.db, [sha256(content), keptRow!.hash]);
        await blobs.put(blobKey(sha256(content)), content);
        await db.handle.db
          .update(blobIntents)
          .set({ createdAt: sql`now() - make_interval(hours => ${ageHours})` })
          .where(eq(blobIntents.id, upload.intentId));
        return sha256(content);
      };
      const old = await died(Buffer.from('stored two hours ago'), 2);
      const recent = await died(Buffer.from('stored just now'), 0);

      assert.equal(await sweepBlobIntents(db.handle.db, blobs, new Date(Date.now() - 3600_000)), 1);
      assert.equal(await blobs.has(blobKey(old)), false);
      assert.equal(await blobs.has(blobKey(recent)), true, 'an upload younger than the cut-off may still be running');
      assert.equal((await intents()).length, 1);
      assert.equal(await sweepBlobIntents(db.handle.db, blobs), 1, 'without a cut-off every intent is dead');
      assert.equal(await blobs.has(blobKey(recent)), false);
      assert.equal(await blobs.has(blobKey(keptRow!.hash)), true);
      assert.deepEqual(await intents(), []);
    });
  });
}
