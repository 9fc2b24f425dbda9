// Docs builds when Node itself lives under /tmp (an nvm-style install in a temporary folder, a CI
// cache, a tool-managed Node): the build sandbox hides the host's /tmp, so it must bind the running
// Node back in. The server here runs on a copy of this Node under the temporary folder and builds a
// docs site from a `blume deploy --build`; a sandbox that cannot build stops the server at start.
import assert from 'node:assert/strict';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findBubblewrap } from '../../src/deploy/build/isolation.js';
import { startReaderServer, type ReaderServer } from '../helpers/doc-commands.js';
import { startBlume } from '../helpers/process.js';

const BUBBLEWRAP_MISSING =
  findBubblewrap() === undefined ? 'bubblewrap is missing or cannot make namespaces here (.ci/run installs it)' : false;

describe('a server whose Node lives under /tmp', { skip: BUBBLEWRAP_MISSING }, () => {
  let scratch: string;
  let node: string;
  let reader: ReaderServer;
  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-node-under-tmp-'));
    node = path.join(scratch, 'node', 'bin', 'node');
    await mkdir(path.dirname(node), { recursive: true });
    await copyFile(process.execPath, node);
    await chmod(node, 0o755);
    reader = await startReaderServer('handbook', {}, node);
  });
  after(async () => {
    await reader?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('builds a docs site in the sandbox', async () => {
    assert.ok(node.startsWith('/tmp/'), `the copy is not under /tmp: ${node}`);
    assert.match(reader.server.output(), /Builds: bubblewrap \(no network/);
    const deployed = await reader.run(
      'BLUME_DEPLOY_TOKEN=dpl_... npx blume deploy test/fixtures/docs-site --site handbook --url http://localhost:8080 --build --promote',
    );
    assert.equal(deployed.status, 0, `${deployed.stdout}\n${deployed.stderr}`);
    assert.match(deployed.stdout, /^release [a-z0-9]{12}: \d+ files/);
    const page = await reader.run('curl -s http://handbook.localhost:8080/guide/install/');
    assert.match(page.stdout, /<h1>Install<\/h1>/);
  });

  it('refuses to start, once and saying why, when the sandbox cannot build', async () => {
    // A bubblewrap that makes namespaces (the quick check passes) but cannot start the build's Node.
    const fakeBin = path.join(scratch, 'fake-bin');
    await mkdir(fakeBin, { recursive: true });
    await writeFile(
      path.join(fakeBin, 'bwrap'),
      `#!/bin/sh\nfor last; do :; done\n[ "$last" = true ] && exit 0\necho "bwrap: execvp ${node}: No such file or directory" >&2\nexit 1\n`,
    );
    await chmod(path.join(fakeBin, 'bwrap'), 0o755);
    const dataDir = path.join(scratch, 'broken-data');
    const started = startBlume([], { PATH: `${fakeBin}:${process.env.PATH ?? ''}`, BLUME_DATA_DIR: dataDir }, node);
    await assert.rejects(started, (error: Error) => {
      assert.match(error.message, /a docs build of one page failed in the build sandbox, so every build would/);
      assert.match(error.message, /bwrap: execvp .*: No such file or directory/);
      assert.match(error.message, /BLUME_BUILD_CONCURRENCY=0/);
      assert.equal(error.message.match(/failed in the build sandbox/g)?.length, 1);
      return true;
    });
  });
});
