// Every status an API route really answers is in its OpenAPI document. With BLUME_RECORD_STATUSES
// set, the test app logs each answer (test file, database, cache, method, route, status); those the
// API test files saw on PGlite with the memory cache must be documented for that operation in
// docs/api/. A whole run (scripts/run-tests.js) logs them as the API tests run, then runs this check
// on its log (BLUME_STATUSES_RECORDED); run on its own, this file runs the API test files itself.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

const API_TESTS = [
  'src/portal/portal.test.ts',
  'src/instances/instances.test.ts',
  'src/deploy/deploy.test.ts',
  'src/deploy/git/github.test.ts',
  'src/forum/forum.test.ts',
  'src/forum/drafts.test.ts',
  'src/forum/moderation.test.ts',
  'src/forum/trust.test.ts',
  'src/helpdesk/helpdesk.test.ts',
  'src/helpdesk/tickets.test.ts',
  'src/helpdesk/inbound-routes.test.ts',
  'src/helpdesk/reports.test.ts',
  'src/http/allowed-methods.test.ts',
  'src/http/login-throttle.test.ts',
];
const DOCUMENTS = ['portal', 'deploy', 'instances', 'forum', 'helpdesk'];

/** Runs the API test files on PGlite with the memory cache, logging their answers to `log`. */
function runApiTests(log: string): void {
  const env: NodeJS.ProcessEnv = { ...process.env, BLUME_RECORD_STATUSES: log, NODE_ENV: 'test' };
  delete env.TEST_DATABASE_URL;
  delete env.TEST_REDIS_URL;
  // Set by the test runner running this file; the nested run must be a run of its own.
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=dot', ...API_TESTS], {
    env,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, `the API tests failed:\n${run.stdout}\n${run.stderr}`);
}

type Document = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

describe('OpenAPI documents and real answers', () => {
  it('document every status the API tests saw each route answer', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'blume-statuses-'));
    const log = process.env.BLUME_STATUSES_RECORDED || path.join(dir, 'statuses.log');
    try {
      if (!process.env.BLUME_STATUSES_RECORDED) runApiTests(log);
      const operations = new Map<string, Set<string>>();
      for (const name of DOCUMENTS) {
        const doc = JSON.parse(
          await readFile(new URL(`../docs/api/${name}.json`, import.meta.url), 'utf8'),
        ) as Document;
        for (const [route, item] of Object.entries(doc.paths)) {
          for (const [method, operation] of Object.entries(item)) {
            operations.set(
              `${method.toUpperCase()} ${route.replace(/\{([^}]+)\}/g, ':$1')}`,
              new Set(Object.keys(operation.responses)),
            );
          }
        }
      }
      const apiTests = new Set(API_TESTS);
      const seen = new Set<string>();
      for (const line of (await readFile(log, 'utf8')).trim().split('\n')) {
        const [file, database, cache, ...answer] = line.split(' ');
        if (apiTests.has(file!) && database === 'pglite' && cache === 'memory') seen.add(answer.join(' '));
      }
      assert.ok(seen.size > 50, 'the API tests recorded answers');
      const undocumented: string[] = [];
      for (const line of seen) {
        const [method, route, status] = line.split(' ') as [string, string, string];
        // 405 answers paths with no route for the method: there is no operation to document it on.
        // CORS preflights answer on a hidden catch-all route.
        if (route.endsWith('/openapi.json') || route.endsWith('*') || status === '405') continue;
        const documented = operations.get(`${method === 'HEAD' ? 'GET' : method} ${route}`);
        if (!documented?.has(status)) undocumented.push(line);
      }
      assert.deepEqual(undocumented.sort(), [], 'answers missing from docs/api/ (add them to the route schema)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
