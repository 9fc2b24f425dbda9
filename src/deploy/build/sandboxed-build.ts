// runSandboxedBuild: a docs build from untrusted Markdown, run by runSandboxedProcess in a child
// process that may read only the docs folder and the builder's code, write only the output and a
// private working folder, and is stopped on time, memory and output limits. The caller gets the
// outcome and the timestamped log; a failed build leaves the output folder empty.
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildTimings } from './docs-site.js';
import { BUNDLE_ENTRY_FILE, bundleBuilderEntry, DIST_BUNDLE_DIR } from './entry-bundle.js';
import { abortMessage, runSandboxedProcess, type SandboxLogLine } from './sandbox.js';

interface SandboxedBuildOptions {
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
  /** The site's build environment variables: the build process's whole environment. */
  env?: Record<string, string>;
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

interface SandboxedBuildStats {
  durationMs: number;
  peakRssMb: number | undefined;
  pages: number;
  files: number;
  outputBytes: number;
  warnings: number;
  timings: BuildTimings | undefined;
  /** CPU time (user + system, every thread) the build process reported using, start-up included. */
  cpuMs: number | undefined;
  exitCode: number | null;
  signal: string | null;
  isolation: 'bubblewrap' | 'permission-model';
}

interface SandboxedBuildResult {
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
  /** The content's problems of a failed build, each already printed as an `error:` line. */
  problems?: unknown[];
  timings?: BuildTimings;
  cpuMs?: number;
}

export async function runSandboxedBuild(options: SandboxedBuildOptions): Promise<SandboxedBuildResult> {
  const maxOutputBytes = options.maxOutputBytes ?? 512 * 1024 * 1024;
  const input = await realpath(path.resolve(options.inputDir));
  await mkdir(options.outputDir, { recursive: true });
  const output = await realpath(path.resolve(options.outputDir));
  const workDir = await mkdtemp(path.join(options.scratchDir ?? tmpdir(), 'blume-build-'));
  try {
    const entry =
      options.builderScript === undefined ? await builderEntry() : { script: options.builderScript, readPaths: [] };
    // Handed over in a file: a large site's dates would not fit in one argument.
    const datesFile = options.pageDates === undefined ? undefined : path.join(workDir, 'page-dates.json');
    if (datesFile !== undefined) await writeFile(datesFile, JSON.stringify(Object.fromEntries(options.pageDates!)));
    const run = await runSandboxedProcess({
      script: entry.script,
      args: [
        JSON.stringify({
          input,
          output,
          maxOutputBytes,
          ...(options.siteUrl === undefined ? {} : { siteUrl: options.siteUrl }),
          ...(datesFile === undefined ? {} : { datesFile }),
        }),
      ],
      readPaths: [input, output, ...entry.readPaths, ...(datesFile === undefined ? [] : [datesFile])],
      writePaths: [output],
      workDir,
      ...(options.env === undefined ? {} : { env: options.env }),
      // The builder builds pages on worker threads running its own entry (page-threads.ts).
      allowWorkers: options.builderScript === undefined,
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
    else if (report === undefined)
      error = `the build process ended without a result (exit code ${run.exitCode ?? 'none'}, signal ${run.signal ?? 'none'})`;
    else if (!report.ok) error = report.error ?? 'the build failed';

    // The builder counts its own writes; this measures what is really there, whatever the job did.
    const measured = error === undefined ? await measureOutput(output) : undefined;
    if (measured !== undefined && measured.problem !== undefined) error = measured.problem;
    else if (measured !== undefined && measured.bytes > maxOutputBytes)
      error = `the built site is ${measured.bytes} bytes, over the limit of ${maxOutputBytes}`;

    const finalLine: SandboxLogLine = {
      at: new Date().toISOString(),
      stream: 'sandbox',
      line:
        error === undefined
          ? `build succeeded in ${run.durationMs} ms`
          : `build failed: ${problemsListed(report) ? problemCount(report!.problems!.length) : error}`,
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
        cpuMs: typeof report?.cpuMs === 'number' ? report.cpuMs : undefined,
        exitCode: run.exitCode,
        signal: run.signal,
        isolation: run.isolation,
      },
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Entries measured between two turns of the event loop. */
const MEASURE_SLICE = 512;

/** Whether the builder printed the content's problems one per line (the final line need not repeat them). */
function problemsListed(report: EntryReport | undefined): boolean {
  return Array.isArray(report?.problems) && report.problems.length > 0;
}

function problemCount(count: number): string {
  return count === 1 ? '1 problem in the content, listed above' : `${count} problems in the content, each listed above`;
}

function isEntryReport(value: unknown): value is EntryReport {
  return typeof value === 'object' && value !== null && typeof (value as { ok?: unknown }).ok === 'boolean';
}

/**
 * The output's size and file count, and whether it holds a symbolic link. Synchronous calls, a slice
 * at a time with a turn of the event loop between slices: one async call per entry is several
 * times slower for a site of many small folders.
 */
async function measureOutput(root: string): Promise<{ bytes: number; files: number; problem?: string }> {
  const folders = [root];
  let bytes = 0;
  let files = 0;
  let slice = 0;
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink())
        return {
          bytes: 0,
          files: 0,
          problem: `the build left a symbolic link in the output: ${path.relative(root, full)}`,
        };
      if (entry.isDirectory()) folders.push(full);
      else if (entry.isFile()) {
        bytes += lstatSync(full).size;
        files += 1;
      }
      slice += 1;
      if (slice === MEASURE_SLICE) {
        slice = 0;
        await new Promise(setImmediate);
      }
    }
  }
  return { bytes, files };
}

async function emptyFolder(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
}

interface BuilderEntry {
  script: string;
  /** Paths the entry needs to read besides itself (the bundle's folder). */
  readPaths: string[];
}

let bundled: Promise<BuilderEntry> | undefined;

/**
 * The entry the build process runs, bundled (entry-bundle.ts): from dist/, the bundle `npm run build`
 * made next to this file; under tsx (tests, `npm run dev`), whose TypeScript sources a
 * permission-restricted child cannot load, one bundled once per process into a temporary folder.
 * The process may read the bundle's folder and nothing else of Blume's.
 */
export async function builderEntry(): Promise<BuilderEntry> {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) {
    const dir = path.join(path.dirname(here), DIST_BUNDLE_DIR);
    return { script: path.join(dir, BUNDLE_ENTRY_FILE), readPaths: [dir] };
  }
  bundled ??= bundleEntry(path.join(path.dirname(here), 'build-entry.ts'));
  return bundled;
}

async function bundleEntry(source: string): Promise<BuilderEntry> {
  const dir = await mkdtemp(path.join(tmpdir(), 'blume-build-entry-'));
  // The bundle serves every build of this process; it goes when the process does.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { script: await bundleBuilderEntry(source, dir), readPaths: [dir] };
}

/**
 * Builds a one-page site through the real entry, the real sandbox and the real limits, in a
 * temporary folder: what `blume serve` runs before it starts, so a sandbox that cannot build (a
 * missing bind, a Node that cannot start inside it) is found once, at start. Returns the failure
 * with the build's log, or undefined when the build worked.
 */
export async function probeSandboxedBuild(): Promise<string | undefined> {
  const dir = await mkdtemp(path.join(tmpdir(), 'blume-build-probe-'));
  try {
    await mkdir(path.join(dir, 'docs'));
    await writeFile(
      path.join(dir, 'docs', 'index.md'),
      '# Start-up check\n\nA page built to check the build sandbox.\n',
    );
    const result = await runSandboxedBuild({
      inputDir: path.join(dir, 'docs'),
      outputDir: path.join(dir, 'site'),
      scratchDir: dir,
      timeoutMs: 60_000,
    });
    if (result.ok) return undefined;
    return [result.error, ...result.logs.map((line) => `  ${line.line}`)].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
