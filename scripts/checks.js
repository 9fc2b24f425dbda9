#!/usr/bin/env node
// The checks `npm test` runs before the tests: types, lint, formatting and dead exports. They run two
// at a time (one per core) and each one's output is printed when it ends; the run fails if any fails.
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'exports:unused', 'format:check'];
const concurrency = 2;

/** Runs `npm run <name>`, answering whether it passed; its output is printed in one piece at the end. */
function check(name) {
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`== ${name}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(output));
      resolve(code === 0);
    });
  });
}

const queue = [...CHECKS];
const results = await Promise.all(
  Array.from({ length: concurrency }, async () => {
    const passed = [];
    for (let name = queue.shift(); name; name = queue.shift()) passed.push(await check(name));
    return passed.every(Boolean);
  }),
);
process.exit(results.every(Boolean) ? 0 : 1);
