import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { SpooledFile } from './spool-writer.js';
import { SpoolWriter } from './spool-writer.js';

function spooledFile(sitePath: string, content: Buffer): SpooledFile {
  return { path: sitePath, hash: createHash('sha256').update(content).digest('hex'), size: content.length, spool: '' };
}

/** The content in two chunks, as it comes out of an archive. */
function chunks(content: Buffer): Buffer[] {
  return [content.subarray(0, 7), content.subarray(7)];
}

describe('spool writer', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'blume-spool-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each file with the variants worth keeping, none for content already stored', async () => {
    const page = Buffer.from('<p>hello from the spool</p>\n'.repeat(200));
    const stored = Buffer.from('body { color: red }\n'.repeat(100));
    const image = randomBytes(4000);
    const files = {
      page: spooledFile('index.html', page),
      stored: spooledFile('style.css', stored),
      image: spooledFile('logo.png', image),
    };
    const asked: string[][] = [];
    const writer = new SpoolWriter(path.join(dir, 'one'), {
      stored: async (hashes) => {
        asked.push(hashes);
        return new Set([files.stored.hash]);
      },
    });
    await writer.add(files.page, chunks(page));
    await writer.add(files.stored, chunks(stored));
    await writer.add(files.image, chunks(image));
    await writer.drain();

    assert.deepEqual(await readFile(files.page.spool), page);
    assert.deepEqual(await readFile(files.stored.spool), stored);
    assert.deepEqual(await readFile(files.image.spool), image);
    assert.match(path.relative(dir, files.page.spool), /^one\/lane-\d\/\d+$/);
    assert.deepEqual(
      asked,
      [[files.page.hash, files.stored.hash]],
      'only compressible files are looked up, once per batch',
    );

    const { gzip, br } = files.page.variants ?? {};
    assert.ok(gzip && br);
    assert.deepEqual(gunzipSync(await readFile(gzip.file)), page);
    assert.deepEqual(brotliDecompressSync(await readFile(br.file)), page);
    assert.equal((await stat(br.file)).size, br.size);
    assert.equal(files.stored.variants, undefined, 'stored content is not compressed again');
    assert.equal(files.image.variants, undefined, 'images are not compressed');
  });

  it('reports a failed write with its file-system error and refuses more work', async () => {
    // A file where the writer's folder should be.
    const blocked = path.join(dir, 'blocked');
    await writeFile(blocked, 'not a folder');
    const writer = new SpoolWriter(blocked);
    const content = Buffer.from('some text to spool');
    await writer.add(spooledFile('a.txt', content), chunks(content));
    await assert.rejects(
      writer.drain(),
      (error: NodeJS.ErrnoException) => error.code === 'ENOTDIR' && error.syscall === 'open',
    );
    assert.ok(writer.failure, 'the failure is kept, so the caller knows it is not the archive at fault');
    await assert.rejects(writer.add(spooledFile('b.txt', content), chunks(content)), /ENOTDIR/);
  });
});
