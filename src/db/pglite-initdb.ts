// Child process entry: makes a new PGlite data folder, and with `--migrate` applies the migrations,
// then exits (see ensurePgliteDir).
import { openPgliteAt } from './client.js';
import { runMigrations } from './migrate.js';

const [dir, flag] = process.argv.slice(2);
if (!dir) throw new Error('usage: pglite-initdb <folder> [--migrate]');
const handle = await openPgliteAt(dir);
if (flag === '--migrate') await runMigrations(handle);
await handle.close();
