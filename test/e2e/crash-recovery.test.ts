// A server killed with kill -9 in the middle of a docs build: the sandboxed build dies with it
// instead of running on with no limits, and the next start fails the build (with a log line) and
// removes the scratch folders the dead process left in `<data>/tmp`.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { multipartBody, tarball } from '../helpers/archives.js';
import { eventually } from '../helpers/eventually.js';
import { buildProcesses, callApi as call, runBlume, startBlume } from '../helpers/process.js';

/** Enough Markdown that the build runs for a while (a few seconds here). */
async function bigDocs(): Promise<Buffer> {
  const paragraph = 'Blume builds *Markdown* into a site: `code`, [links](../page-1/), lists and tables.\n\n'.repeat(
    40,
  );
  const pages = Array.from({ length: 2500 }, (_, i) => ({
    name: `page-${i}.md`,
    content: `# Page ${i}\n\n${paragraph}`,
  }));
  return tarball([{ name: 'index.md', content: '# Home\n' }, ...pages]);
}

describe('kill -9 during a docs build', () => {
  let dataDir: string;
  let env: Record<string, string>;
  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'blume-crash-'));
    env = { BLUME_DATA_DIR: dataDir, BLUME_PUBLIC_URL: 'http://blume.test' };
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('takes the build down with the server, and the next start fails it and sweeps the scratch folders', async () => {
    const server = await startBlume([], env);
    let token: string;
    try {
      assert.match(server.output(), /^Builds: /m);
      const admin = await runBlume(
        ['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'],
        env,
      );
      assert.equal(admin.status, 0, admin.stderr);
      const login = await call(
        server,
        'POST',
        '/api/auth/login',
        {},
        { login: 'admin', password: 'correct horse battery' },
      );
      const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
      assert.equal((await call(server, 'POST', '/api/sites', { cookie }, { id: 'docs', kind: 'static' })).status, 201);
      token = String(
        (await call(server, 'POST', '/api/sites/docs/deploy-tokens', { cookie }, { name: 'ci' })).body.token,
      );

      const upload = multipartBody('archive', await bigDocs(), 'docs.tar');
      // Its connection dies with the server; the answer is never awaited for anything else.
      const waiting = fetch(`${server.url}/api/deploy/docs/source`, {
        method: 'POST',
        headers: { ...upload.headers, authorization: `Bearer ${token}` },
        body: new Uint8Array(upload.payload),
      }).catch((error: unknown) => error);
      await eventually('the sandboxed build to start', () => buildProcesses(dataDir).length > 0 || undefined, 60_000);
      await server.stop('SIGKILL');
      await waiting;
    } catch (error) {
      await server.stop('SIGKILL');
      throw error;
    }
    await eventually('the orphaned build to die', () => buildProcesses(dataDir).length === 0 || undefined, 10_000);
    const left = await readdir(path.join(dataDir, 'tmp'));
    assert.ok(
      left.some((name) => name.startsWith('build-')),
      `the killed server leaves its build folder: ${left.join(', ')}`,
    );

    // Restarted where neither bubblewrap nor setpriv is on PATH: the banner says so, once.
    const restarted = await startBlume([], { ...env, PATH: path.join(dataDir, 'no-tools') });
    try {
      const builds = restarted.output().match(/^Builds: .*$/gm) ?? [];
      assert.equal(builds.length, 1, restarted.output());
      assert.match(
        builds[0]!,
        /bubblewrap is not available, so builds run under Node's permission model only .*NOT killed with the server \(setpriv is missing too\)/,
      );
      assert.deepEqual(await readdir(path.join(dataDir, 'tmp')), []);
      assert.match(restarted.output(), /removed \d+ scratch folder\(s\) a stopped Blume process left/);
      const { body } = await call(restarted, 'GET', '/api/deploy/docs/builds', { authorization: `Bearer ${token}` });
      const [build] = body.builds as Array<{ state: string; error: string; logs: Array<{ line: string }> }>;
      assert.equal(build?.state, 'failed', JSON.stringify(build));
      // The log is written through a buffer: wait for the line rather than read the output once.
      await eventually(
        'the abandoned build logged',
        () => /build abandoned by its worker marked failed/.test(restarted.output()) || undefined,
        10_000,
      );
      assert.match(build.error, /Blume restarted while this build was running/);
      assert.ok(
        build.logs.some((line) => /^build failed: Blume restarted while this build was running/.test(line.line)),
        JSON.stringify(build.logs),
      );
    } finally {
      assert.equal(await restarted.stop(), 0);
    }
  });
});
