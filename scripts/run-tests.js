#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner (through tsx). Arguments narrow
// the run to files whose path contains one of them: `npm run test:only -- portal deploy`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

function find(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') out.push(...find(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = ['src', 'test']
  .flatMap((dir) => find(dir))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files match');
  process.exit(1);
}
if (!process.env.TEST_DATABASE_URL) console.log('# TEST_DATABASE_URL is not set: database tests run on PGlite only');
if (!process.env.TEST_REDIS_URL)
  console.log('# TEST_REDIS_URL is not set: cache tests run on the in-memory cache only');

const concurrency = process.env.BLUME_TEST_CONCURRENCY ?? '2';
const timingsDir = mkdtempSync(path.join(tmpdir(), 'blume-test-timings-'));
const timingsFile = path.join(timingsDir, 'timings.jsonl');
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(import.meta.dirname, 'test-timings-reporter.js')}`,
    `--test-reporter-destination=${timingsFile}`,
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);

// The ten files whose tests took longest, then one plain closing line with the counts.
const events = readFileSync(timingsFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
rmSync(timingsDir, { recursive: true, force: true });
// A file's time: from the start of its first top-level test to the end of its last one.
const spans = new Map();
for (const event of events) {
  if (event.nesting !== 0 || !event.file) continue;
  const span = spans.get(event.file) ?? { from: Infinity, to: 0 };
  spans.set(event.file, { from: Math.min(span.from, event.at - event.ms), to: Math.max(span.to, event.at) });
}
const slowest = [...spans]
  .map(([file, span]) => [file, span.to - span.from])
  .sort((a, b) => b[1] - a[1])
  .slice(0, 10);
console.log('\n# the 10 slowest test files');
for (const [file, ms] of slowest)
  console.log(`#   ${(ms / 1000).toFixed(1).padStart(7)} s  ${path.relative(process.cwd(), file)}`);
const count = (outcome) => events.filter((event) => !event.suite && event.outcome === outcome).length;
console.log(`tests: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
process.exit(result.status ?? 1);
