// Runs a Node script as an untrusted job: its own process group, an environment of only what the caller gives, a private
// working folder, file access narrowed by Node's permission model (read: the listed paths; write:
// the output and working folders; no child processes or native addons, and no worker threads
// unless the caller allows them: they share the process and its permissions), a V8 heap limit,
// a resident-memory watchdog, a wall-clock limit and bounded logs. When bubblewrap is installed and
// usable the job also runs in fresh namespaces with no network and a read-only root. A job that
// overruns is killed with its whole process group; the parent only reads its pipes. The job dies
// with the parent, even when the parent is killed outright: bubblewrap's --die-with-parent, or else
// a parent-death signal set by setpriv, has the kernel kill it (./isolation.ts).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { findBubblewrap, findSetpriv, permissionFlag } from './isolation.js';

export interface SandboxLogLine {
  /** RFC 3339 UTC time the parent received the line. */
  at: string;
  stream: 'stdout' | 'stderr' | 'sandbox';
  line: string;
}

export interface SandboxedProcessOptions {
  /** A plain JavaScript entry (.js or .mjs); it is read, never trusted. */
  script: string;
  args: string[];
  readPaths: string[];
  writePaths: string[];
  /** Current folder of the job; it may write there. */
  workDir: string;
  timeoutMs: number;
  memoryMb: number;
  /** Bytes of log text kept; later lines are dropped after one notice. */
  maxLogBytes: number;
  /** Largest result document the job may send on fd 3. */
  maxResultBytes?: number;
  onLog?: (line: SandboxLogLine) => void;
  bubblewrap?: 'auto' | 'off';
  /** Stops the job early (the server shutting down, a canceled build); it is killed with its group. */
  signal?: AbortSignal;
  /** The job's whole environment (default: empty); the caller keeps names that steer Node out. */
  env?: Record<string, string>;
  /** Lets the job start worker threads (same process, same permissions and limits). */
  allowWorkers?: boolean;
}

interface SandboxedProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  memoryExceeded: boolean;
  aborted: boolean;
  /** Parsed JSON the job wrote to file descriptor 3, if any. */
  result: unknown;
  logs: SandboxLogLine[];
  durationMs: number;
  peakRssMb: number | undefined;
  isolation: 'bubblewrap' | 'permission-model';
}

const MAX_LINE_CHARS = 4_000;
// Room above the V8 heap for Node itself, code and buffers before the watchdog steps in.
const RSS_HEADROOM_MB = 256;
const WATCH_INTERVAL_MS = 100;

export async function runSandboxedProcess(options: SandboxedProcessOptions): Promise<SandboxedProcessResult> {
  const started = performance.now();
  const logs: SandboxLogLine[] = [];
  let logBytes = 0;
  let logsFull = false;
  const emit = (stream: SandboxLogLine['stream'], text: string): void => {
    if (logsFull) return;
    const line = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… [line cut]` : text;
    logBytes += Buffer.byteLength(line) + 1;
    const entry: SandboxLogLine = { at: new Date().toISOString(), stream, line };
    if (logBytes > options.maxLogBytes && stream !== 'sandbox') {
      logsFull = true;
      entry.stream = 'sandbox';
      entry.line = `log limit of ${options.maxLogBytes} bytes reached; further output is dropped`;
    }
    logs.push(entry);
    options.onLog?.(entry);
  };

  for (const p of [...options.readPaths, ...options.writePaths, options.workDir, options.script]) {
    if (!path.isAbsolute(p)) throw new Error(`sandbox paths must be absolute: ${p}`);
  }
  const flag = permissionFlag();
  if (flag === undefined) throw new Error(`Node ${process.version} has no permission model; builds cannot be isolated`);
  const nodeArgs = [
    flag,
    ...[options.script, ...options.readPaths].map((p) => `--allow-fs-read=${p}`),
    ...[options.workDir, ...options.writePaths].map((p) => `--allow-fs-write=${p}`),
    // Node warns on stderr, into the build log, that workers widen what a process may do; here they
    // run the builder's own code under the same permissions (docs/decisions/0054-docs-build-worker-threads.md).
    ...(options.allowWorkers === true ? ['--allow-worker', '--disable-warning=SecurityWarning'] : []),
    `--max-old-space-size=${options.memoryMb}`,
    '--disallow-code-generation-from-strings',
    '--disable-warning=ExperimentalWarning',
    options.script,
    ...options.args,
  ];
  const bwrap = options.bubblewrap === 'off' ? undefined : findBubblewrap();
  const useBwrap = bwrap !== undefined;
  const setpriv = useBwrap ? undefined : findSetpriv();
  // What starts Node also ties it to this process's life (docs/decisions/0036-builds-die-with-the-server.md).
  const launcher = useBwrap
    ? [bwrap, ...bubblewrapArgs(options)]
    : setpriv !== undefined
      ? [setpriv, '--pdeathsig', 'KILL', '--']
      : [];
  const [command, ...args] = [...launcher, process.execPath, ...nodeArgs] as [string, ...string[]];
  emit(
    'sandbox',
    useBwrap
      ? 'bubblewrap (no network, read-only root) + Node permission model'
      : 'Node permission model (bubblewrap not available)',
  );

  const child = spawn(command, args, {
    cwd: options.workDir,
    env: { ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    // Its own process group, so a kill reaches anything it managed to start.
    detached: true,
  });
  let timedOut = false;
  let memoryExceeded = false;
  let peakRssKb: number | undefined;
  const killGroup = (): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    emit('sandbox', `build stopped: it ran longer than the limit of ${options.timeoutMs} ms`);
    killGroup();
  }, options.timeoutMs);
  let aborted = false;
  const onAbort = (): void => {
    aborted = true;
    emit('sandbox', `build stopped: ${abortMessage(options.signal)}`);
    killGroup();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const rssLimitKb = (options.memoryMb + RSS_HEADROOM_MB) * 1024;
  const watchdog = setInterval(() => {
    if (child.pid === undefined) return;
    // The whole tree: under bubblewrap the child is bwrap, and the job runs two levels below it.
    const rss = readTreeRssKb(child.pid);
    if (rss === undefined) return;
    peakRssKb = Math.max(peakRssKb ?? 0, rss);
    if (rss > rssLimitKb && !memoryExceeded) {
      memoryExceeded = true;
      emit('sandbox', `build stopped: it used more than ${options.memoryMb + RSS_HEADROOM_MB} MB of memory`);
      killGroup();
    }
  }, WATCH_INTERVAL_MS);

  const resultChunks: Buffer[] = [];
  let resultBytes = 0;
  const maxResult = options.maxResultBytes ?? 1024 * 1024;
  const resultPipe = child.stdio[3] as NodeJS.ReadableStream | null;
  resultPipe?.on('data', (chunk: Buffer) => {
    resultBytes += chunk.length;
    if (resultBytes <= maxResult) resultChunks.push(chunk);
  });
  const lineDone = [child.stdout, child.stderr].map((stream, i) => {
    const name = i === 0 ? 'stdout' : 'stderr';
    if (stream === null) throw new Error('the job was spawned without an output pipe');
    const reader = createInterface({ input: stream, crlfDelay: Infinity });
    reader.on('line', (line) => {
      // V8 prints this and aborts when the heap limit (--max-old-space-size) is hit.
      if (/JavaScript heap out of memory|Reached heap limit/.test(line) && !memoryExceeded) {
        memoryExceeded = true;
        emit('sandbox', `build stopped: it used more than the heap limit of ${options.memoryMb} MB`);
      }
      emit(name, line);
    });
    return new Promise<void>((resolve) => reader.once('close', resolve));
  });

  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
    },
  ).finally(() => {
    clearTimeout(timer);
    clearInterval(watchdog);
    options.signal?.removeEventListener('abort', onAbort);
  });
  // Anything the job left running in its group goes with it.
  killGroup();
  await Promise.all(lineDone);

  let result: unknown;
  if (resultBytes > maxResult) emit('sandbox', `result document larger than ${maxResult} bytes ignored`);
  else if (resultChunks.length > 0) {
    try {
      result = JSON.parse(Buffer.concat(resultChunks).toString('utf8'));
    } catch {
      emit('sandbox', 'result document is not valid JSON; ignored');
    }
  }
  return {
    exitCode: code,
    signal,
    timedOut,
    memoryExceeded,
    aborted,
    result,
    logs,
    durationMs: Math.round(performance.now() - started),
    peakRssMb: peakRssKb === undefined ? undefined : Math.round(peakRssKb / 1024),
    isolation: useBwrap ? 'bubblewrap' : 'permission-model',
  };
}

/** Why a job was stopped through its signal: the Error (or text) given to abort(), else a shutdown. */
export function abortMessage(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message;
  if (typeof reason === 'string') return reason;
  return 'the worker is shutting down';
}

/** Resident memory of a process and all its descendants, or undefined once the process is gone. */
function readTreeRssKb(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  let total = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0);
  for (const child of childPids(pid)) total += readTreeRssKb(child) ?? 0;
  return total;
}

function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((word) => word !== '')
        .map(Number),
    );
  } catch {
    // The process ended while it was read.
    return [];
  }
}

function bubblewrapArgs(options: SandboxedProcessOptions): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  // Re-expose what the job needs after /tmp was replaced: the Node that runs it (a CI cache or a
  // tool-managed Node may live under /tmp), read-only inputs, writable outputs.
  for (const p of [...nodeRuntimeFiles(), options.script, ...options.readPaths]) args.push('--ro-bind', p, p);
  for (const p of [options.workDir, ...options.writePaths]) args.push('--bind', p, p);
  args.push('--unshare-all', '--die-with-parent', '--new-session', '--chdir', options.workDir);
  return args;
}

let runtimeFiles: string[] | undefined;

/**
 * The files the job's Node needs to start, wherever they live: the Node binary itself and every
 * shared library this process (the same binary) has mapped. Under bubblewrap only those under /tmp
 * matter, and only those are listed; the rest of the root is already there, read-only.
 */
function nodeRuntimeFiles(): string[] {
  if (runtimeFiles !== undefined) return runtimeFiles;
  const files = new Set([process.execPath]);
  let maps = '';
  try {
    maps = readFileSync('/proc/self/maps', 'utf8');
  } catch {
    // No /proc (not Linux): bubblewrap is not there either.
  }
  for (const line of maps.split('\n')) {
    const file = /\s(\/\S.*)$/.exec(line)?.[1];
    if (file !== undefined && !file.endsWith(' (deleted)') && /\.so(\.|$)/.test(path.basename(file))) files.add(file);
  }
  runtimeFiles = [...files].filter((file) => file.startsWith('/tmp/'));
  return runtimeFiles;
}
