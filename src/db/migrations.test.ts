// The committed migrations must be exactly what drizzle-kit generates from the schema: a table or
// column changed without `npm run db:generate` fails here instead of in production.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('committed migrations', () => {
  it('match the schema', async () => {
    // drizzle-kit wants the output folder inside the project.
    const scratch = await mkdtemp(path.join(ROOT, '.migrations-check-'));
    try {
      const out = path.join(scratch, 'migrations');
      await cp(path.join(ROOT, 'migrations'), out, { recursive: true });
      const before = await readdir(out);
      const result = spawnSync(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/drizzle-kit/bin.cjs'),
          'generate',
          '--dialect',
          'postgresql',
          '--schema',
          './src/db/schema.ts',
          '--out',
          path.relative(ROOT, out),
        ],
        { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
      );
      assert.equal(result.status, 0, result.stderr);
      assert.match(
        result.stdout,
        /No schema changes/,
        `the schema differs from the committed migrations; run \`npm run db:generate\`:\n${result.stdout}`,
      );
      assert.deepEqual(await readdir(out), before);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
