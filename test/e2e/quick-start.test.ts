// The README's quick start, run as written in a fresh copy of the project: `npm install && npm start`,
// then every command of the second block in a shell, in order. Only two things differ from what a
// reader types: the port (8080 may be taken on a shared machine, so every `localhost:8080` becomes a
// free port, and the server is told to bind it) and the `dpl_...` placeholder, which gets the token
// the command before it printed, as the README asks the reader to do. Then SIGTERM to `npm start`
// must stop the server.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The shell blocks of the README's "Quick start" section, with continued lines joined. */
export async function quickStartBlocks(): Promise<string[][]> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const section = /^## Quick start\n([\s\S]*?)^## /m.exec(readme)?.[1];
  assert.ok(section, 'README.md has a "Quick start" section');
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((block) =>
    block[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .filter((line) => line.trim() !== ''),
  );
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The project as a fresh clone has it: tracked files plus new ones not ignored, nothing built or installed. */
async function freshCopy(target: string): Promise<void> {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  assert.equal(listed.status, 0, listed.stderr);
  for (const file of listed.stdout.split('\0').filter((name) => name !== '')) {
    await mkdir(path.dirname(path.join(target, file)), { recursive: true });
    // A tracked file deleted in the working tree is not part of the copy.
    await copyFile(path.join(ROOT, file), path.join(target, file)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/** The `npm start` process under the shell that ran `npm install && npm start`. */
function npmStart(shell: number): number {
  const children = readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  const npm = children.find((pid) =>
    readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes('npm start'),
  );
  assert.ok(npm !== undefined, `no npm start under the shell ${shell}`);
  return npm;
}

describe('README quick start', () => {
  let dir: string;
  let port: number;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'blume-quick-start-'));
    await freshCopy(dir);
    port = await freePort();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('works word for word, and SIGTERM to npm start stops the server', { timeout: 900_000 }, async () => {
    const [serverBlock, steps] = await quickStartBlocks();
    assert.deepEqual(serverBlock, ['npm install && npm start']);
    assert.ok(steps && steps.length > 0);
    const local = (command: string) => command.replaceAll('localhost:8080', `localhost:${port}`);
    // A fresh shell: none of the test run's settings, only the port.
    const env: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(BLUME_|DATABASE_URL$|NODE_ENV$|TEST_)/.test(name)),
    );
    Object.assign(env, { BLUME_BIND: `127.0.0.1:${port}`, BLUME_PUBLIC_URL: `http://localhost:${port}` });

    const server = spawn('sh', ['-c', serverBlock[0]!], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    try {
      for (let waited = 0; !/Blume is running/.test(output); waited += 50) {
        assert.ok(waited < 600_000 && server.exitCode === null, `npm start did not come up:\n${output}`);
        await sleep(50);
      }
      // It said it was compiling before the silence of the compiler.
      assert.ok(
        output.indexOf('Compiling Blume') !== -1 &&
          output.indexOf('Compiling Blume') < output.indexOf('Blume is running'),
        output,
      );

      let token = '';
      let last = '';
      for (const step of steps) {
        const command = local(step).replace('dpl_...', token);
        const result = spawnSync('sh', ['-c', command], { cwd: dir, env, encoding: 'utf8', timeout: 180_000 });
        assert.equal(result.status, 0, `${step}\n${result.stdout}\n${result.stderr}\nthe server said:\n${output}`);
        if (step.includes('/deploy-tokens')) token = (JSON.parse(result.stdout) as { token: string }).token;
        last = result.stdout;
      }
      assert.match(token, /^dpl_/);
      assert.match(last, /<h1>Hello from Blume<\/h1>/);
    } finally {
      // The way a service manager stops it: SIGTERM to the process it started, `npm start`. A server
      // that already ended has nothing to stop, and the failure above says why.
      if (server.exitCode === null && server.signalCode === null) process.kill(npmStart(server.pid!), 'SIGTERM');
    }
    for (let waited = 0; await portOpen(port); waited += 50) {
      assert.ok(waited < 30_000, 'the server still answers 30 s after SIGTERM to npm start');
      await sleep(50);
    }
    await exited;
    // A graceful stop releases the data directory's lock; a killed or orphaned server would not.
    assert.equal(existsSync(path.join(dir, 'data', 'blume.lock')), false, output);
  });
});
