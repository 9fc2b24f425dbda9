import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findBubblewrap } from './isolation.js';
import { runSandboxedProcess, type SandboxLogLine, type SandboxedProcessOptions } from './sandbox.js';
import { runSandboxedBuild } from './sandboxed-build.js';

const fixture = fileURLToPath(new URL('../../../test/fixtures/docs-site/', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

let scratch: string;
before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'blume-sandbox-test-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

/** Live processes whose command line names `script` (a zombie's command line is empty). */
function processesRunning(script: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(script);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Runs a tiny job script in the sandbox: the limits are properties of the sandbox, so they are
 * tested with scripts that misbehave on purpose rather than with content that could.
 */
async function runJob(name: string, source: string, overrides: Partial<SandboxedProcessOptions> = {}) {
  const dir = path.join(scratch, `${name}-${overrides.bubblewrap ?? 'auto'}`);
  await mkdir(path.join(dir, 'work'), { recursive: true });
  const script = path.join(dir, `${name}.mjs`);
  await writeFile(script, source);
  return runSandboxedProcess({
    script,
    args: [],
    readPaths: [],
    writePaths: [],
    workDir: path.join(dir, 'work'),
    timeoutMs: 10_000,
    memoryMb: 128,
    maxLogBytes: 64 * 1024,
    ...overrides,
  });
}

const BUBBLEWRAP_MISSING =
  findBubblewrap() === undefined ? 'bubblewrap is missing or cannot make namespaces here (.ci/run installs it)' : false;
/** Every job test runs under both isolations a machine may have: bubblewrap, and the permission model alone. */
const ISOLATIONS = [
  { bubblewrap: 'auto', isolation: 'bubblewrap', skip: BUBBLEWRAP_MISSING },
  { bubblewrap: 'off', isolation: 'permission-model', skip: false },
] as const;

for (const mode of ISOLATIONS)
  describe(`runSandboxedProcess (${mode.isolation})`, { skip: mode.skip }, () => {
    const runScript = (name: string, source: string, overrides: Partial<SandboxedProcessOptions> = {}) =>
      runJob(name, source, { bubblewrap: mode.bubblewrap, ...overrides });

    it('runs with an empty environment, in its working folder, and reports on fd 3', async () => {
      const run = await runScript(
        'env',
        `import { writeSync } from 'node:fs';\nconsole.log('hello');\nwriteSync(3, JSON.stringify({ env: Object.keys(process.env), cwd: process.cwd() }));\n`,
      );
      assert.equal(run.exitCode, 0);
      assert.equal(run.isolation, mode.isolation);
      const result = run.result as { env: string[]; cwd: string };
      // bubblewrap always sets PWD, to the working folder; that names nothing the job does not know.
      assert.deepEqual(
        { ...result, env: result.env.filter((name) => name !== 'PWD') },
        { env: [], cwd: path.join(scratch, `env-${mode.bubblewrap}`, 'work') },
      );
      const hello = run.logs.find((l) => l.line === 'hello');
      assert.equal(hello?.stream, 'stdout');
      assert.match(hello?.at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('refuses reads outside the allowed paths, child processes and workers', async () => {
      const run = await runScript(
        'escape',
        `import { readFileSync, writeFileSync, writeSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
const attempt = (f) => { try { f(); return 'allowed'; } catch (e) { return e.code; } };
writeSync(3, JSON.stringify({
  read: attempt(() => readFileSync('/etc/passwd')),
  write: attempt(() => writeFileSync('${scratch}/planted', 'x')),
  spawn: attempt(() => execSync('true')),
  worker: attempt(() => new Worker('1', { eval: true })),
}));
`,
      );
      assert.deepEqual(run.result, {
        read: 'ERR_ACCESS_DENIED',
        write: 'ERR_ACCESS_DENIED',
        spawn: 'ERR_ACCESS_DENIED',
        worker: 'ERR_ACCESS_DENIED',
      });
    });

    it('kills a job that loops past the time limit, with its process group', async () => {
      const started = Date.now();
      const run = await runScript('loop', `for (;;) {}\n`, { timeoutMs: 1_000 });
      assert.equal(run.timedOut, true);
      assert.equal(run.signal, 'SIGKILL');
      assert.ok(Date.now() - started < 8_000);
      assert.ok(run.logs.some((l) => l.stream === 'sandbox' && /ran longer than the limit of 1000 ms/.test(l.line)));
      assert.deepEqual(processesRunning(path.join(scratch, `loop-${mode.bubblewrap}`, 'loop.mjs')), []);
    });

    it('stops a job that eats memory, and the parent carries on', async () => {
      const run = await runScript(
        'hog',
        `const keep = [];\nfor (;;) keep.push(new Array(100_000).fill(Math.random()));\n`,
        { memoryMb: 64, timeoutMs: 30_000 },
      );
      assert.equal(run.memoryExceeded, true);
      assert.equal(run.timedOut, false);
      assert.notEqual(run.exitCode, 0);
      assert.ok(run.logs.some((l) => l.stream === 'sandbox' && /used more than/.test(l.line)));
      assert.ok(process.memoryUsage().rss < 2 * 1024 * 1024 * 1024);
    });

    it('stops a job that eats memory outside the heap (buffers) with the RSS watchdog', async () => {
      const run = await runScript(
        'buffers',
        `const keep = [];\nfor (;;) { const b = Buffer.alloc(16 * 1024 * 1024, 1); keep.push(b); await new Promise((r) => setTimeout(r, 5)); }\n`,
        { memoryMb: 64, timeoutMs: 30_000 },
      );
      assert.equal(run.memoryExceeded, true);
      assert.ok(run.logs.some((l) => /used more than 320 MB/.test(l.line)));
    });

    it('bounds the log', async () => {
      const run = await runScript(
        'chatty',
        `for (let i = 0; i < 10000; i++) console.log('line ' + i + ' ' + 'x'.repeat(100));\n`,
        { maxLogBytes: 10_000 },
      );
      assert.equal(run.exitCode, 0);
      assert.ok(run.logs.length < 120);
      assert.match(run.logs.at(-1)?.line ?? '', /log limit of 10000 bytes reached/);
    });
  });

describe('a job whose parent is killed', () => {
  for (const { bubblewrap, isolation, skip } of ISOLATIONS) {
    it(`dies with it (${isolation})`, { skip }, async () => {
      const dir = path.join(scratch, `orphan-${bubblewrap}`);
      await mkdir(path.join(dir, 'work'), { recursive: true });
      const job = path.join(dir, 'busy-job.mjs');
      // Busy forever: nothing in the job's own event loop could notice anything.
      await writeFile(job, "console.log('job started');\nfor (;;) {}\n");
      const parentScript = path.join(dir, 'parent.mts');
      await writeFile(
        parentScript,
        `import { findBubblewrap } from './isolation.js';
import { runSandboxedProcess } from ${JSON.stringify(pathToFileURL(path.join(root, 'src/deploy/build/sandbox.ts')).href)};
await runSandboxedProcess({ script: ${JSON.stringify(job)}, args: [], readPaths: [], writePaths: [], workDir: ${JSON.stringify(path.join(dir, 'work'))},
  timeoutMs: 120_000, memoryMb: 64, maxLogBytes: 4096, bubblewrap: ${JSON.stringify(bubblewrap)}, onLog: (l) => console.log(l.line) });
`,
      );
      const parent = spawn(process.execPath, ['--import', 'tsx', parentScript], {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      for (let i = 0; !output.includes('job started'); i++) {
        assert.ok(i < 600, `the job did not start:\n${output}`);
        await sleep(50);
      }
      assert.notDeepEqual(processesRunning(job), []);
      parent.kill('SIGKILL');
      for (let i = 0; processesRunning(job).length > 0; i++) {
        assert.ok(i < 100, `the job outlived its killed parent by 5 s: ${processesRunning(job).join(', ')}`);
        await sleep(50);
      }
    });
  }
});

describe('runSandboxedBuild', () => {
  it('builds a docs tree in the sandbox and streams timestamped logs', async () => {
    const output = path.join(scratch, 'site');
    const streamed: SandboxLogLine[] = [];
    const result = await runSandboxedBuild({
      inputDir: fixture,
      outputDir: output,
      timeoutMs: 60_000,
      onLog: (line) => streamed.push(line),
    });
    assert.equal(result.error, undefined);
    assert.equal(result.ok, true);
    assert.deepEqual(streamed, result.logs);
    // The file count includes the search index shards, so it is checked against what was written.
    const written = (await readdir(output, { recursive: true, withFileTypes: true })).filter((entry) =>
      entry.isFile(),
    ).length;
    assert.ok(
      result.logs.some(
        (l) =>
          l.stream === 'stdout' &&
          new RegExp(`^built 8 pages, ${written} files, \\d+ bytes in \\d+ ms \\(scan`).test(l.line),
      ),
    );
    assert.match(result.logs.at(-1)?.line ?? '', /^build succeeded in \d+ ms$/);
    assert.equal(result.stats.pages, 8);
    assert.equal(result.stats.files, written);
    assert.ok(result.stats.timings !== undefined);
    assert.ok(existsSync(path.join(output, 'guide/install/index.html')));
  });

  it('ships the Mermaid renderer with a site that has a diagram, read from the bundle in the sandbox', async () => {
    const input = path.join(scratch, 'diagram-docs');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'index.md'), '# Flow\n\n```mermaid\ngraph LR\n  A --> B\n```\n');
    const output = path.join(scratch, 'diagram-site');
    const result = await runSandboxedBuild({ inputDir: input, outputDir: output, timeoutMs: 60_000 });
    assert.equal(result.error, undefined, JSON.stringify(result.logs));
    const renderer = (await readdir(path.join(output, '_blume'))).find((name) => name.startsWith('mermaid.'));
    assert.ok(renderer, 'the renderer is an asset of the site');
    assert.match(await readFile(path.join(output, '_blume', renderer), 'utf8'), /mermaid/);
  });

  it('fails content that links outside its folder, with a clear log line and an empty output', async () => {
    const input = path.join(scratch, 'escape-in');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'index.md'), '# Home\n\n[secrets](../../../../etc/passwd)\n');
    await symlink('/etc/hostname', path.join(input, 'host.md'));
    const output = path.join(scratch, 'escape-out');
    const result = await runSandboxedBuild({ inputDir: input, outputDir: output });
    assert.equal(result.ok, false);
    const errors = result.logs.filter((l) => l.stream === 'stderr').map((l) => l.line);
    assert.ok(
      errors.includes(
        'error: host.md: is a symbolic link; links are not followed, so nothing outside the docs folder can be read',
      ),
      errors.join('\n'),
    );
    assert.deepEqual(await readdir(output), []);
  });

  it('fails a build whose output is over the limit', async () => {
    const input = path.join(scratch, 'big-in');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'index.md'), '# Home\n');
    await writeFile(path.join(input, 'video.bin'), Buffer.alloc(300_000));
    const output = path.join(scratch, 'big-out');
    const result = await runSandboxedBuild({ inputDir: input, outputDir: output, maxOutputBytes: 200_000 });
    assert.equal(result.ok, false);
    assert.match(result.error ?? '', /larger than the limit of 200000 bytes/);
    assert.deepEqual(await readdir(output), []);
  });

  /** Runs a builder that writes what it likes into its output and says it succeeded: what the sandbox measures afterwards is what counts. */
  async function hostileBuild(name: string, writes: string, maxOutputBytes: number) {
    const script = path.join(scratch, `${name}.mjs`);
    await writeFile(
      script,
      `import { mkdirSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';\nimport path from 'node:path';\nconst { output } = JSON.parse(process.argv[2]);\n${writes}\nwriteSync(3, JSON.stringify({ ok: true }));\n`,
    );
    const input = path.join(scratch, `${name}-in`);
    await mkdir(input, { recursive: true });
    const output = path.join(scratch, `${name}-out`);
    return {
      output,
      result: await runSandboxedBuild({ inputDir: input, outputDir: output, builderScript: script, maxOutputBytes }),
    };
  }

  it('measures the output itself, whatever the builder reports', async () => {
    const big = await hostileBuild(
      'oversize',
      `for (const dir of ['a/b', 'a/c', 'd']) { mkdirSync(path.join(output, dir), { recursive: true }); writeFileSync(path.join(output, dir, 'x.bin'), Buffer.alloc(70_000)); }`,
      200_000,
    );
    assert.equal(big.result.ok, false);
    assert.equal(big.result.error, 'the built site is 210000 bytes, over the limit of 200000');
    assert.deepEqual(await readdir(big.output), []);

    const fits = await hostileBuild(
      'fits',
      `for (const dir of ['a/b', 'a/c', 'd']) { mkdirSync(path.join(output, dir), { recursive: true }); writeFileSync(path.join(output, dir, 'x.bin'), Buffer.alloc(70_000)); }`,
      300_000,
    );
    assert.equal(fits.result.error, undefined);
    assert.deepEqual([fits.result.stats.files, fits.result.stats.outputBytes], [3, 210_000]);
  });

  it('fails a build that makes a symbolic link in its output', async () => {
    // The permission model refuses the link; were it made, measuring the output would refuse it.
    const linked = await hostileBuild(
      'linked',
      `mkdirSync(path.join(output, 'a/b'), { recursive: true }); writeFileSync(path.join(output, 'a/page.html'), 'x'); symlinkSync('/etc/hostname', path.join(output, 'a/b/host'));`,
      200_000,
    );
    assert.equal(linked.result.ok, false);
    assert.match(
      linked.result.error ?? '',
      /^the build (process ended without a result|left a symbolic link in the output: a\/b\/host)/,
    );
    assert.deepEqual(await readdir(linked.output), []);
  });

  it('reports a broken link with file and line and leaves the parent unaffected', async () => {
    const input = path.join(scratch, 'broken-in');
    await mkdir(input, { recursive: true });
    await writeFile(path.join(input, 'index.md'), '# Home\n\nRead [this](missing.md).\n');
    const result = await runSandboxedBuild({ inputDir: input, outputDir: path.join(scratch, 'broken-out') });
    assert.equal(result.ok, false);
    assert.equal(result.error, 'index.md:3: broken link "missing.md": links to a page that does not exist');
    assert.ok(result.logs.some((l) => l.stream === 'stderr' && l.line === `error: ${result.error}`));
    assert.equal(result.logs.at(-1)?.line, 'build failed: 1 problem in the content, listed above');
  });
});
