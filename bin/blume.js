#!/usr/bin/env node
// The `blume` command. Runs the compiled CLI in dist/ (`npm install` builds it; `npm run build` rebuilds).
// First: an old Node stops here, before anything else loads.
import './check-node.js';
import { existsSync } from 'node:fs';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('blume: dist/ is missing; run `npm run build` in the Blume folder first.');
  process.exit(1);
}
await import(entry.href);
