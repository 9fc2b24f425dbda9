import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import S3rver from 's3rver';
import { createLocalBlobStore } from './local.js';
import { createS3BlobStore } from './s3.js';
import type { BlobStore } from './types.js';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const stores: Array<{ name: string; open(dir: string): Promise<{ store: BlobStore; close(): Promise<void> }> }> = [
  {
    name: 'local',
    open: async (dir) => ({ store: createLocalBlobStore(path.join(dir, 'blobs')), close: async () => {} }),
  },
  {
    name: 's3 (s3rver)',
    open: async (dir) => {
      // A real S3 API server on loopback; the adapter talks to it through the AWS SDK.
      const server = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: path.join(dir, 's3'),
        configureBuckets: [{ name: 'blume', configs: [] }],
      });
      const { port } = (await server.run()) as { port: number };
      const store = await createS3BlobStore({
        bucket: 'blume',
        region: 'us-east-1',
        endpoint: `http://127.0.0.1:${port}`,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
        prefix: 'test/',
      });
      return { store, close: () => server.close() };
    },
  },
];

for (const { name, open } of stores) {
  describe(`blob store [${name}]`, () => {
    let dir: string;
    let store: BlobStore;
    let close: () => Promise<void>;

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'blume-blobs-'));
      ({ store, close } = await open(dir));
    });
    after(async () => {
      await close();
      await rm(dir, { recursive: true, force: true });
    });

    it('puts, reads, streams, lists and deletes blobs', async () => {
      await store.put('sha256/ab/abcdef', Buffer.from('hello'));
      const big = Buffer.alloc(3 * 1024 * 1024, 7);
      await store.put('sha256/cd/cdef01', Readable.from([big.subarray(0, 1000), big.subarray(1000)]), big.length);
      assert.equal((await store.read('sha256/ab/abcdef'))?.toString(), 'hello');
      assert.ok((await collect((await store.get('sha256/cd/cdef01'))!)).equals(big));
      assert.equal(await store.has('sha256/ab/abcdef'), true);
      assert.equal(await store.has('sha256/ff/missing'), false);
      assert.equal(await store.get('sha256/ff/missing'), undefined);
      assert.equal(await store.read('sha256/ff/missing'), undefined);
      const keys: string[] = [];
      for await (const key of store.list('sha256/')) keys.push(key);
      assert.deepEqual(keys.sort(), ['sha256/ab/abcdef', 'sha256/cd/cdef01']);
      await store.delete('sha256/ab/abcdef');
      assert.equal(await store.has('sha256/ab/abcdef'), false);
    });

    it('overwrites a key atomically', async () => {
      await store.put('k/one', Buffer.from('first'));
      await store.put('k/one', Buffer.from('second'));
      assert.equal((await store.read('k/one'))?.toString(), 'second');
    });

    it('refuses keys that could escape the store', async () => {
      for (const key of ['../etc/passwd', '/abs', 'a//b', 'A/Upper', '']) {
        await assert.rejects(() => store.put(key, Buffer.from('x')), /invalid blob key/, key);
      }
    });
  });
}
