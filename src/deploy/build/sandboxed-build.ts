// runSandboxedBuild: a docs build from untrusted Markdown, run by runSandboxedProcess in a child
// process that may read only the docs folder and the builder's code, write only the output and a
// private working folder, and is stopped on time, memory and output limits. The caller gets the
// outcome and the timestamped log; a failed build leaves the output folder empty.
import { rmSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildTimings } from './docs-site.js';
import { abortMessage, runSandboxedProcess, type SandboxLogLine } from './sandbox.js';

export interface SandboxedBuildOptions {
  inputDir: string;
  outputDir: string;
  /** Wall-clock limit (default 120 s). */
  timeoutMs?: number;
  /** V8 heap limit of the build process (default 512 MB). */
  memoryMb?: number;
  /** Size limit of the built site (default 512 MiB). */
  maxOutputBytes?: number;
  /** Size limit of the build log (default 1 MiB). */
  maxLogBytes?: number;
  siteUrl?: string;
  /** When each source file last changed (ISO 8601), by its path in the docs folder: the pages' "last updated". */
  pageDates?: ReadonlyMap<string, string>;
  onLog?: (line: SandboxLogLine) => void;
  bubblewrap?: 'auto' | 'off';
  /** Stops the build early (the worker shutting down, a canceled build); its reason is logged. */
  signal?: AbortSignal;
  /** Runs this script instead of the docs builder (tests of the build worker only). */
  builderScript?: string;
  /** Where the build's private working folder is made (default: the system's temp folder). */
  scratchDir?: string;
}

export interface SandboxedBuildStats {
  durationMs: number;
  peakRssMb: number | undefined;
  pages: number;
  files: number;
  outputBytes: number;
  warnings: number;
  timings: BuildTimings | undefined;
  exitCode: number | null;
  signal: string | null;
  isolation: 'bubblewrap' | 'permission-model';
}

export interface SandboxedBuildResult {
  ok: boolean;
  logs: SandboxLogLine[];
  error: string | undefined;
  stats: SandboxedBuildStats;
}

interface EntryReport {
  ok: boolean;
  error?: string;
  pages?: number;
  files?: number;
  bytes?: number;
  warnings?: number;
  timings?: BuildTimings;
}

export async function runSandboxedBuild(options: SandboxedBuildOptions): Promise<SandboxedBuildResult> {
  const maxOutputBytes = options.maxOutputBytes ?? 512 * 1024 * 1024;
  const input = await realpath(path.resolve(options.inputDir));
  await mkdir(options.outputDir, { recursive: true });
  const output = await realpath(path.resolve(options.outputDir));
  const workDir = await mkdtemp(path.join(options.scratchDir ?? tmpdir(), 'blume-build-'));
  try {
    const entry = options.builderScript === undefined ? await builderEntry() : { script: options.builderScript, readPaths: [] };
    // Handed over in a file: a large site's dates would not fit in one argument.
    const datesFile = options.pageDates === undefined ? undefined : path.join(workDir, 'page-dates.json');
    if (datesFile !== undefined) await writeFile(datesFile, JSON.stringify(Object.fromEntries(options.pageDates!)));
    const run = await runSandboxedProcess({
      script: entry.script,
      args: [JSON.stringify({ input, output, maxOutputBytes, ...(options.siteUrl === undefined ? {} : { siteUrl: options.siteUrl }), ...(datesFile === undefined ? {} : { datesFile }) })],
      readPaths: [input, output, ...entry.readPaths, ...(datesFile === undefined ? [] : [datesFile])],
      writePaths: [output],
      workDir,
      timeoutMs: options.timeoutMs ?? 120_000,
      memoryMb: options.memoryMb ?? 512,
      maxLogBytes: options.maxLogBytes ?? 1024 * 1024,
      ...(options.onLog === undefined ? {} : { onLog: options.onLog }),
      ...(options.bubblewrap === undefined ? {} : { bubblewrap: options.bubblewrap }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const report = isEntryReport(run.result) ? run.result : undefined;
    let error: string | undefined;
    if (run.aborted) error = `the build was stopped: ${abortMessage(options.signal)}`;
    else if (run.timedOut) error = `the build ran longer than the limit of ${options.timeoutMs ?? 120_000} ms`;
    else if (run.memoryExceeded) error = `the build used more memory than the limit of ${options.memoryMb ?? 512} MB`;
    else if (report === undefined) error = `the build process ended without a result (exit code ${run.exitCode ?? 'none'}, signal ${run.signal ?? 'none'})`;
    else if (!report.ok) error = report.error ?? 'the build failed';

    // The builder counts its own writes; this measures what is really there, whatever the job did.
    const measured = error === undefined ? await measureOutput(output) : undefined;
    if (measured !== undefined && measured.problem !== undefined) error = measured.problem;
    else if (measured !== undefined && measured.bytes > maxOutputBytes) error = `the built site is ${measured.bytes} bytes, over the limit of ${maxOutputBytes}`;

    const finalLine: SandboxLogLine = {
      at: new Date().toISOString(),
      stream: 'sandbox',
      line: error === undefined ? `build succeeded in ${run.durationMs} ms` : `build failed: ${error}`,
    };
    run.logs.push(finalLine);
    options.onLog?.(finalLine);
    if (error !== undefined) await emptyFolder(output);
    return {
      ok: error === undefined,
      logs: run.logs,
      error,
      stats: {
        durationMs: run.durationMs,
        peakRssMb: run.peakRssMb,
        pages: report?.pages ?? 0,
        files: measured?.files ?? 0,
        outputBytes: measured?.bytes ?? 0,
        warnings: report?.warnings ?? 0,
        timings: report?.timings,
        exitCode: run.exitCode,
        signal: run.signal,
        isolation: run.isolation,
      },
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

function isEntryReport(value: unknown): value is EntryReport {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

async function measureOutput(root: string): Promise<{ bytes: number; files: number; problem?: string }> {
  let bytes = 0;
  let files = 0;
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isSymbolicLink()) return { bytes, files, problem: `the build left a symbolic link in the output: ${path.relative(root, full)}` };
    if (!entry.isFile()) continue;
    files += 1;
    bytes += (await lstat(full)).size;
  }
  return { bytes, files };
}

async function emptyFolder(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
}

interface BuilderEntry {
  script: string;
  /** Paths the entry needs to read besides itself (compiled code and its packages). */
  readPaths: string[];
}

let bundled: Promise<BuilderEntry> | undefined;

/**
 * From dist/ the entry is build-entry.js next to this file, reading dist/ and node_modules/. Under
 * tsx (tests, `npm run dev`) the sources are TypeScript, which a permission-restricted child cannot
 * load (tsx needs worker threads and reads outside any narrow allow-list), so the entry and its
 * packages are bundled once per process into a single file with esbuild, a development dependency.
 */
async function builderEntry(): Promise<BuilderEntry> {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) {
    const distRoot = path.dirname(path.dirname(path.dirname(here)));
    const packageRoot = path.dirname(distRoot);
    const modules = await realpath(path.join(packageRoot, 'node_modules'));
    return { script: path.join(path.dirname(here), 'build-entry.js'), readPaths: [distRoot, modules, path.join(packageRoot, 'package.json')] };
  }
  bundled ??= bundleEntry(path.join(path.dirname(here), 'build-entry.ts'));
  return bundled;
}

async function bundleEntry(source: string): Promise<BuilderEntry> {
  const { build } = await import('esbuild');
  const dir = await mkdtemp(path.join(tmpdir(), 'blume-build-entry-'));
  const script = path.join(dir, 'build-entry.mjs');
  // The bundle serves every build of this process; it goes when the process does.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  await build({
    entryPoints: [source],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // CommonJS packages inside an ESM bundle call require() for Node built-ins.
    banner: { js: "import { createRequire as __blumeCreateRequire } from 'node:module'; const require = __blumeCreateRequire(import.meta.url);" },
  });
  return { script, readPaths: [] };
}
