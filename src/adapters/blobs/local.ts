import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomAlnum } from '../../lib/ids.js';
import { assertBlobKey, type BlobStore } from './types.js';

/**
 * Runs a write into the folder of `target`, creating the folder only when the write finds it missing:
 * its folders exist for all but the first blobs, and a `mkdir` per write was a thread-pool round trip.
 */
async function inFolder<T>(target: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(path.dirname(target), { recursive: true });
    return write();
  }
}

/** Blobs as files under one folder. Writes go to a temporary file and are renamed into place. */
export function createLocalBlobStore(root: string): BlobStore {
  const file = (key: string): string => {
    assertBlobKey(key);
    return path.join(root, key);
  };

  async function* walk(dir: string, prefix: string): AsyncIterable<string> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.tmp-')) continue;
      const key = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) yield* walk(path.join(dir, entry.name), key);
      else yield key;
    }
  }

  return {
    driver: 'local',
    put: async (key, body) => {
      const target = file(key);
      const temp = path.join(path.dirname(target), `.tmp-${randomAlnum(12)}`);
      try {
        if (Buffer.isBuffer(body)) {
          await inFolder(target, () => writeFile(temp, body, { mode: 0o640 }));
        } else {
          // A stream cannot be read twice: the folder comes first.
          await mkdir(path.dirname(target), { recursive: true });
          await pipeline(body, createWriteStream(temp, { mode: 0o640 }));
        }
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
    moveIn: async (key, source) => {
      const target = file(key);
      try {
        await inFolder(target, () => rename(source, target));
      } catch (error) {
        // Another file system (a spool folder elsewhere): copy through a temporary file instead.
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        const temp = path.join(path.dirname(target), `.tmp-${randomAlnum(12)}`);
        try {
          await pipeline(createReadStream(source), createWriteStream(temp, { mode: 0o640 }));
          await rename(temp, target);
        } finally {
          await rm(temp, { force: true });
        }
      }
    },
    get: async (key) => {
      const target = file(key);
      try {
        await stat(target);
      } catch {
        return undefined;
      }
      return createReadStream(target);
    },
    read: async (key) => {
      try {
        return await readFile(file(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    has: async (key) => {
      try {
        return (await stat(file(key))).isFile();
      } catch {
        return false;
      }
    },
    delete: async (key) => {
      await rm(file(key), { force: true });
    },
    list: (prefix = '') => {
      const start = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
      return (async function* () {
        for await (const key of walk(path.join(root, start), start)) if (key.startsWith(prefix)) yield key;
      })();
    },
    localPath: file,
    // The folder appears with the first blob; a fresh install's store is healthy all the same.
    ping: async () => {
      await mkdir(root, { recursive: true });
    },
  };
}
