// `npm run exports:unused` (scripts/dead-exports.ts), which `npm test` runs before the tests: it fails
// on an export of src/ that nothing imports and passes once nothing is left, on a small tree of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../scripts/dead-exports.ts', import.meta.url));

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'blume-exports-'));
  const all = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noLib: true, types: [] },
      include: ['src', 'test'],
    }),
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

function check(root: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, root], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe('dead exports check', () => {
  it('fails naming an export nothing imports, and passes when none is left', async () => {
    const root = await tree({
      'src/rules.ts':
        'export const used = 1;\nexport const onlyHere = 2;\nexport function neverCalled(): number { return onlyHere; }\n',
      'src/main.ts': "import { used } from './rules.js';\nvoid used;\n",
      'src/tested.ts': 'export const forTests = 3;\n',
      'test/tested.test.ts': "import { forTests } from '../src/tested.js';\nvoid forTests;\n",
    });
    try {
      const dirty = check(root);
      assert.equal(dirty.status, 1, dirty.output);
      assert.match(dirty.output, /dead exports \(2\)/);
      assert.match(dirty.output, /src\/rules\.ts: neverCalled/);
      assert.match(dirty.output, /src\/rules\.ts: onlyHere/);
      assert.doesNotMatch(dirty.output, /: used$|forTests/m);

      await writeFile(path.join(root, 'src/rules.ts'), 'export const used = 1;\n');
      const clean = check(root);
      assert.equal(clean.status, 0, clean.output);
      assert.match(clean.output, /dead exports: none/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
