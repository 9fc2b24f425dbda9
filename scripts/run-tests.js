#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner (through tsx). Arguments narrow
// the run to files whose path contains one of them: `npm run test:only -- portal deploy`.
// Files start longest first (test/durations.json, the times of a whole run), so the last ones to end
// are short and the lanes finish together (decision 0132); `node --test` itself would sort them by
// name. Quick files share a process (decision 0144). BLUME_TEST_DURATIONS_UPDATE=1 on a whole run
// rewrites test/durations.json with its times.
import { readdirSync, readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import timings from './test-timings-reporter.js';

function find(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') out.push(...find(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const durationsFile = path.join('test', 'durations.json');
/** Seconds each file took in a whole run; a file not listed counts as quick. */
const durations = JSON.parse(readFileSync(durationsFile, 'utf8'));
const filters = process.argv.slice(2);
const files = ['src', 'test']
  .flatMap((dir) => find(dir))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort()
  .sort((a, b) => (durations[b] ?? 0) - (durations[a] ?? 0));
if (files.length === 0) {
  console.error('no test files match');
  process.exit(1);
}
if (!process.env.TEST_DATABASE_URL) console.log('# TEST_DATABASE_URL is not set: database tests run on PGlite only');
if (!process.env.TEST_REDIS_URL)
  console.log('# TEST_REDIS_URL is not set: cache tests run on the in-memory cache only');

// The OpenAPI status check reads the statuses the API tests answer. In a whole run they record them as
// they run, and the check runs once they have all ended; a narrowed run's check runs them itself.
const statusCheck = path.join('test', 'openapi-statuses.test.ts');
const checkAfterwards = filters.length === 0 && files.includes(statusCheck);
const scratch = mkdtempSync(path.join(tmpdir(), 'blume-test-run-'));
const statusLog = path.join(scratch, 'statuses.log');

const concurrency = Number(process.env.BLUME_TEST_CONCURRENCY ?? 2);
// No test may hang a run: one that runs this long fails (the longest, the image build, takes a few
// minutes). `forceExit` is not used: it would end a shared process before its later files load.
const testTimeoutMs = Number(process.env.BLUME_TEST_TIMEOUT_SECONDS ?? 900) * 1000;
const groupSeconds = Number(process.env.BLUME_TEST_GROUP_SECONDS ?? 45);

/**
 * The processes a run starts: a file that takes `groupSeconds` or more runs alone, and so does one with
 * hooks at its top level (they would hold for every file of its process) or whose comments say it
 * "runs in its own process" (it changes the process for good, as the build's network guard does);
 * the rest share processes
 * of about `groupSeconds` each, so the modules they load are loaded once per process rather than once
 * per file. A shared process is a small entry file that imports its files in turn; the runner still
 * names each test's own file.
 */
function processes(list) {
  const alone = (file) =>
    (durations[file] ?? 0) >= groupSeconds ||
    /^(before|after|beforeEach|afterEach)\(|^\/\/.*\bruns in its own process\b/m.test(readFileSync(file, 'utf8'));
  const shared = [];
  for (const file of list.filter((file) => !alone(file))) {
    const seconds = durations[file] ?? 1;
    const open = shared.find((group) => group.seconds + seconds <= groupSeconds);
    if (open) {
      open.files.push(file);
      open.seconds += seconds;
    } else shared.push({ files: [file], seconds });
  }
  const entries = shared.map((group, index) => {
    if (group.files.length === 1) return { file: group.files[0], seconds: group.seconds };
    const entry = path.join(scratch, `shared-${String(index + 1).padStart(2, '0')}.test.mjs`);
    const imports = group.files.map(
      (file) => `await import(${JSON.stringify(pathToFileURL(path.resolve(file)).href)});`,
    );
    writeFileSync(entry, `${imports.join('\n')}\n`);
    return { file: entry, seconds: group.seconds };
  });
  return [...list.filter(alone).map((file) => ({ file, seconds: durations[file] ?? 1 })), ...entries]
    .sort((a, b) => b.seconds - a.seconds)
    .map((entry) => entry.file);
}
process.env.NODE_ENV = 'test';

/** Runs `batch` and answers whether every test passed, with one timing event per finished test. */
async function runFiles(batch, env) {
  Object.assign(process.env, env);
  let success;
  const stream = run({
    files: batch,
    concurrency,
    timeout: testTimeoutMs,
    execArgv: ['--import', 'tsx'],
  });
  stream.on('test:summary', (summary) => {
    if (summary.file === undefined) success = summary.success;
  });
  const printed = pipeline(stream.compose(spec), process.stdout, { end: false });
  const events = [];
  for await (const line of stream.compose(timings)) events.push(JSON.parse(line));
  await printed;
  return { success: success ?? events.every((event) => event.outcome !== 'failed'), events };
}

const main = await runFiles(
  processes(files.filter((file) => !checkAfterwards || file !== statusCheck)),
  checkAfterwards ? { BLUME_RECORD_STATUSES: statusLog } : {},
);
const check = checkAfterwards
  ? await runFiles([statusCheck], { BLUME_RECORD_STATUSES: '', BLUME_STATUSES_RECORDED: statusLog })
  : { success: true, events: [] };
rmSync(scratch, { recursive: true, force: true });
const events = [...main.events, ...check.events];

// A file's time: from the start of its first top-level test to the end of its last one.
const spans = new Map();
for (const event of events) {
  if (event.nesting !== 0 || !event.file) continue;
  const span = spans.get(event.file) ?? { from: Infinity, to: 0 };
  spans.set(event.file, { from: Math.min(span.from, event.at - event.ms), to: Math.max(span.to, event.at) });
}
const seconds = [...spans]
  .map(([file, span]) => [path.relative(process.cwd(), file), (span.to - span.from) / 1000])
  .sort((a, b) => b[1] - a[1]);
// The ten files whose tests took longest, then one plain closing line with the counts.
console.log('\n# the 10 slowest test files');
for (const [file, s] of seconds.slice(0, 10)) console.log(`#   ${s.toFixed(1).padStart(7)} s  ${file}`);
if (process.env.BLUME_TEST_DURATIONS_UPDATE === '1' && filters.length === 0) {
  const whole = Object.fromEntries(seconds.filter(([, s]) => s >= 5).map(([file, s]) => [file, Math.round(s)]));
  writeFileSync(durationsFile, `${JSON.stringify(whole, null, 2)}\n`);
  console.log(`# ${durationsFile} rewritten`);
}
const count = (outcome) => events.filter((event) => !event.suite && event.outcome === outcome).length;
console.log(`tests: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
process.exit(main.success && check.success ? 0 : 1);
