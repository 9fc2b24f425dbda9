#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner (through tsx). Arguments narrow
// the run to files whose path contains one of them: `npm run test:only -- portal deploy`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
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
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
