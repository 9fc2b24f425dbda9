// What `blume` says before it does anything: the usage names every deploy flag, and a mistyped
// command gets the command it most likely meant.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from './index.js';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {}, { out: (text) => (out += `${text}\n`), err: (text) => (err += `${text}\n`) });
  return { code, out, err };
}

describe('blume usage', () => {
  it('lists --build with deploy, and the plan, backup and restore commands', async () => {
    const { code, out } = await cli(['--help']);
    assert.equal(code, 0);
    assert.match(out, /deploy <dir\|archive> --site ID \[--build\] \[--promote\] \[--url PORTAL\]/);
    assert.match(out, /with\s+--build the folder is Markdown/);
    for (const command of ['plan set SITE PLAN', 'plan-feature FEATURE', 'backup DIR', 'restore DIR'])
      assert.ok(out.includes(command), command);
  });

  it('suggests the command a typo meant', async () => {
    for (const [typed, meant] of [
      ['deplo', 'deploy'],
      ['serv', 'serve'],
      ['restor', 'restore'],
      ['create-amdin', 'create-admin'],
      ['Deploy', 'deploy'],
    ] as const) {
      const { code, err } = await cli([typed]);
      assert.equal(code, 2);
      assert.equal(
        err,
        `blume: unknown command "${typed}"; did you mean ${meant}?\n\nRun \`blume --help\` for every command.\n`,
      );
    }
  });

  it('shows the usage for a word that is no command at all', async () => {
    const { code, err } = await cli(['frobnicate']);
    assert.equal(code, 2);
    assert.match(err, /^blume: unknown command "frobnicate"\n\nUsage: blume <command>/);
  });
});
