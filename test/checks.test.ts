// `npm test` runs scripts/checks.js before the tests: types, lint, dead exports and formatting, two at a
// time. Here it runs in a project of its own whose checks pass or fail on purpose.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../scripts/checks.js', import.meta.url));
const CHECKS = ['typecheck', 'lint', 'exports:unused', 'format:check'];

async function runChecks(failing: string | undefined): Promise<{ status: number | null; output: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'blume-checks-'));
  try {
    const scripts = Object.fromEntries(
      CHECKS.map((name) => [name, name === failing ? `echo '${name} found a problem' && exit 3` : `echo '${name} ok'`]),
    );
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'checks-probe', private: true, scripts }));
    const run = spawnSync(process.execPath, [SCRIPT], { cwd: root, encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describe('npm test checks', () => {
  it('runs before the tests', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.match(pkg.scripts.test!, /^node scripts\/checks\.js && node scripts\/run-tests\.js$/);
  });

  it('passes when every check passes, printing each one', async () => {
    const { status, output } = await runChecks(undefined);
    assert.equal(status, 0, output);
    for (const name of CHECKS) assert.match(output, new RegExp(`== ${name}: passed in [\\d.]+ s\\n${name} ok`));
  });

  for (const failing of CHECKS) {
    it(`fails when ${failing} fails, with its output`, async () => {
      const { status, output } = await runChecks(failing);
      assert.equal(status, 1, output);
      assert.match(output, new RegExp(`== ${failing}: failed \\(exit 3\\) in [\\d.]+ s\\n${failing} found a problem`));
    });
  }
});
