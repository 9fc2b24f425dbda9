// Entry of the sandboxed docs build (run by sandboxed-build.ts, never imported). It shuts the
// network off before the builder loads, runs buildDocsSite, prints progress, warnings and errors
// one per line, and reports the outcome as one JSON document on file descriptor 3, a channel the
// content cannot write to (file names and messages only ever reach stdout). The build's worker
// threads run this same script (page-threads.ts): each shuts its own network off the same way and
// then serves page work.
// First import: the network is off before anything else loads.
import './network-off.js';
import { readFileSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

interface EntryArgs {
  input: string;
  output: string;
  siteUrl?: string;
  maxOutputBytes: number;
  /** A JSON object of source path -> ISO 8601 time the file last changed. */
  datesFile?: string;
}

function report(result: Record<string, unknown>): void {
  writeSync(3, JSON.stringify(result));
}

/** Node's permission model names what was refused; say it plainly in the build log. */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const denied = error as Error & { code?: string; permission?: string; resource?: string };
  if (denied.code === 'ERR_ACCESS_DENIED') {
    return `the sandbox refused ${denied.permission ?? 'access'}${denied.resource ? ` to ${denied.resource}` : ''}: a build may only read its docs folder and write its output`;
  }
  return error.message;
}

function readDates(file: string): Map<string, Date> {
  const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  return new Map(Object.entries(record).map(([source, iso]) => [source, new Date(iso)]));
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as EntryArgs;
  const { buildDocsSite } = await import('./docs-site.js');
  const { DocsBuildError, formatProblem } = await import('./errors.js');
  try {
    const result = await buildDocsSite(args.input, args.output, {
      ...(args.siteUrl === undefined ? {} : { siteUrl: args.siteUrl }),
      maxOutputBytes: args.maxOutputBytes,
      ...(args.datesFile === undefined ? {} : { pageDates: readDates(args.datesFile) }),
      // The sandbox's environment holds the site's build variables and nothing else.
      variables: new Map(
        Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
      log: (line) => console.log(line),
      workerScript: fileURLToPath(import.meta.url),
    });
    for (const warning of result.warnings) console.log(`warning: ${formatProblem(warning)}`);
    const cpu = process.cpuUsage();
    report({
      ok: true,
      pages: result.pages,
      files: result.files,
      bytes: result.bytes,
      warnings: result.warnings.length,
      timings: result.timings,
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    });
  } catch (error) {
    if (error instanceof DocsBuildError) {
      for (const problem of error.problems) console.error(`error: ${formatProblem(problem)}`);
      report({ ok: false, error: error.message, problems: error.problems });
    } else {
      const message = describeFailure(error);
      console.error(`error: ${message}`);
      report({ ok: false, error: message });
    }
    process.exitCode = 1;
  }
}

if (isMainThread) await main();
else (await import('./page-threads.js')).servePageWork();
