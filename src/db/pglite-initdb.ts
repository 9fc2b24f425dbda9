// Child process entry: creates a new PGlite data folder and exits (see ensurePgliteDir).
import { PGlite } from '@electric-sql/pglite';
import { pgliteOptions } from './pglite.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: pglite-initdb <folder>');
const db = new PGlite(dir, await pgliteOptions());
await db.waitReady;
await db.close();
