// Canceling builds: a queued build is canceled at once and never runs; a running one is stopped by
// the worker running it (its sandbox killed), told over pub/sub or, on another node that missed the
// message, at its next lease renewal. A canceled build leaves no release and moves no alias.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../../test/helpers/app.js';
import { siteArchive, tarball } from '../../../test/helpers/archives.js';
import { createTestDatabase, testCaches, testDatabases, type TestDatabase } from '../../../test/helpers/databases.js';
import { createStaticSite, deployApi, deployRelease, uploadSource } from '../../../test/helpers/deploy.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { randomAlnum } from '../../lib/ids.js';
import { releases } from '../tables.js';
import { queueSourceUpload } from './service.js';

interface BuildBody {
  id: string;
  state: string;
  release: string | null;
  error: string | null;
  finished_at: string | null;
  cancel_requested_at: string | null;
  logs: { stream: string; line: string }[];
}

const DOCS = [{ name: 'index.md', content: '# Welcome\n' }];
/** Stands in for a docs build that takes long: it says so, then never ends on its own. */
const ENDLESS_BUILDER = "console.log('slow builder started');\nsetInterval(() => {}, 1_000);\n";

function cancel(app: FastifyInstance, token: string, site: string, build: string): Promise<LightMyRequestResponse> {
  return deployApi(app, token, 'POST', `/api/deploy/${site}/builds/${build}/cancel`);
}

/** Processes of this machine whose command line names `script` (the sandbox, with or without bubblewrap). */
function processesRunning(script: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(script)) pids.push(Number(entry));
    } catch {
      // The process ended while the list was read.
    }
  }
  return pids;
}

/** Waits until the site's newest build runs the endless builder; answers its id. */
async function runningBuild(app: FastifyInstance, token: string, site: string): Promise<string> {
  return eventually('the build to start its sandbox', async () => {
    const { builds } = json<{ builds: BuildBody[] }>(
      await deployApi(app, token, 'GET', `/api/deploy/${site}/builds?page_size=1`),
    );
    const build = builds[0];
    return build?.state === 'running' && build.logs.some((line) => line.line === 'slow builder started')
      ? build.id
      : undefined;
  });
}

async function endlessBuilder(dir: string): Promise<string> {
  const script = path.join(dir, `endless-builder-${randomAlnum(8)}.mjs`);
  await writeFile(script, ENDLESS_BUILDER);
  return script;
}

for (const database of testDatabases) {
  describe(`build cancel [${database}]`, () => {
    let t: TestApp;
    let token: string;
    let otherToken: string;
    let live: string;
    let scratch: string;

    before(async () => {
      t = await buildTestApp({ database });
      scratch = await mkdtemp(path.join(tmpdir(), 'blume-cancel-test-'));
      const alice = await signIn(t.app, 'alice');
      token = await createStaticSite(t.app, alice, 'docs');
      otherToken = await createStaticSite(t.app, alice, 'other');
      live = await deployRelease(t.app, token, 'docs', await siteArchive({ 'index.html': '<h1>hand made</h1>' }));
      assert.equal(
        (await deployApi(t.app, token, 'POST', '/api/deploy/docs/promote', { release: live })).statusCode,
        200,
      );
    });
    after(async () => {
      await t.close();
      await rm(scratch, { recursive: true, force: true });
    });

    // In order: the worker is started by the second test, so the first one's build stays queued.
    it('cancels a queued build at once; no worker runs it, its upload is removed, and a repeat answers it again', async () => {
      const { db } = t.deps.database;
      const queued = await queueSourceUpload(
        { db, blobs: t.deps.blobs, limits: t.app.deploy.limits, tmpDir: t.app.deploy.tmpDir },
        'docs',
        Readable.from([await tarball(DOCS)]),
      );
      const response = await cancel(t.app, token, 'docs', queued.id);
      assert.equal(response.statusCode, 200, response.body);
      const build = json<BuildBody>(response);
      assert.equal(build.state, 'canceled');
      assert.ok(build.finished_at && build.cancel_requested_at);
      assert.match(build.error ?? '', /canceled by deploy token "ci" before it started/);
      assert.ok(
        build.logs.some((line) => /build canceled by deploy token "ci" before it started/.test(line.line)),
        JSON.stringify(build.logs),
      );
      assert.equal(await t.app.deploy.builds.runNext(), undefined);
      assert.equal(await t.deps.blobs.has(`build-inputs/${queued.id}`), false);

      const again = await cancel(t.app, token, 'docs', queued.id);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(json<BuildBody>(again).state, 'canceled');
      assert.equal(json<BuildBody>(again).cancel_requested_at, build.cancel_requested_at);
    });

    it('stops a running build: its sandbox is killed, it ends canceled with no release, and POST /source answers 409', async () => {
      const script = await endlessBuilder(scratch);
      t.app.deploy.builds.replaceBuilderForTests(script);
      await t.app.deploy.builds.start();
      try {
        const waiting = uploadSource(t.app, token, 'docs', await tarball(DOCS));
        const id = await runningBuild(t.app, token, 'docs');
        assert.ok(processesRunning(script).length > 0, 'the sandbox runs the builder');

        const response = await cancel(t.app, token, 'docs', id);
        assert.equal(response.statusCode, 200, response.body);
        const build = json<BuildBody>(response);
        assert.equal(build.state, 'canceled');
        assert.equal(build.release, null);
        assert.ok(build.cancel_requested_at);
        assert.ok(
          build.logs.some((line) => line.stream === 'sandbox' && line.line === 'build stopped: the build was canceled'),
          JSON.stringify(build.logs),
        );
        assert.match(
          build.logs.at(-1)!.line,
          /^build canceled by deploy token "ci" \(asked at \d{4}-\d\d-\d\dT.+Z\); nothing was released$/,
        );
        assert.deepEqual(processesRunning(script), []);

        const source = await waiting;
        assert.equal(source.statusCode, 409, source.body);
        const problem = json<{ code: string; build_id: string; logs: { line: string }[] }>(source);
        assert.equal(problem.code, 'build_canceled');
        assert.equal(problem.build_id, id);
        assert.ok(problem.logs.some((line) => line.line.startsWith('build canceled by')));

        assert.equal((await t.deps.database.db.select().from(releases).where(eq(releases.buildId, id))).length, 0);
        const overview = json<{ aliases: { live: string } }>(
          await deployApi(t.app, token, 'GET', '/api/deploy/docs/releases'),
        );
        assert.equal(overview.aliases.live, live);
      } finally {
        t.app.deploy.builds.replaceBuilderForTests(undefined);
      }
    });

    it('answers 409 build_finished with the final state for a build that already succeeded', async () => {
      const built = await uploadSource(t.app, token, 'docs', await tarball(DOCS));
      assert.equal(built.statusCode, 201, built.body);
      const { build_id: id } = json<{ build_id: string }>(built);
      const response = await cancel(t.app, token, 'docs', id);
      assert.equal(response.statusCode, 409, response.body);
      const problem = json<{ code: string; state: string; build_id: string }>(response);
      assert.equal(problem.code, 'build_finished');
      assert.equal(problem.state, 'succeeded');
      assert.equal(problem.build_id, id);
      const detail = json<BuildBody>(await deployApi(t.app, token, 'GET', `/api/deploy/docs/builds/${id}`));
      assert.equal(detail.state, 'succeeded');
      assert.equal(detail.cancel_requested_at, null);
    });

    it('answers 404 for an unknown build and 403 for a deploy token of another site', async () => {
      const missing = await cancel(t.app, token, 'docs', 'nosuchbuild');
      assert.equal(missing.statusCode, 404);
      assert.equal(json(missing).code, 'build_not_found');
      const { builds } = json<{ builds: BuildBody[] }>(await deployApi(t.app, token, 'GET', '/api/deploy/docs/builds'));
      const foreign = await cancel(t.app, otherToken, 'docs', builds[0]!.id);
      assert.equal(foreign.statusCode, 403);
      assert.equal(json(foreign).code, 'token_site_mismatch');
      // Through its own site, the other token does not reach the build either.
      assert.equal((await cancel(t.app, otherToken, 'other', builds[0]!.id)).statusCode, 404);
      const unauthenticated = await portal(t.app, undefined, {
        method: 'POST',
        url: `/api/deploy/docs/builds/${builds[0]!.id}/cancel`,
      });
      assert.equal(unauthenticated.statusCode, 401);
    });
  });

  for (const cache of testCaches) {
    // With separate in-memory caches the nodes cannot hear each other, so the building node must
    // learn of the cancel at a lease renewal; with a shared Redis it hears the pub/sub message.
    const how = cache === 'redis' ? 'through pub/sub' : 'at its next lease renewal';
    describe(`build cancel across nodes [${database}, ${cache}]`, () => {
      let shared: TestDatabase;
      let api: TestApp;
      let builder: TestApp;
      let token: string;
      let dataDir: string;

      before(async () => {
        shared = await createTestDatabase(database);
        dataDir = await mkdtemp(path.join(tmpdir(), 'blume-cancel-nodes-'));
        const cachePrefix = cache === 'redis' ? `blume-test-${randomAlnum(8)}:` : undefined;
        const common = { database, sharedDatabase: shared, cache, ...(cachePrefix ? { cachePrefix } : {}) };
        // The blob store is shared, as a bucket or a volume would be.
        api = await buildTestApp({ ...common, env: { BLUME_DATA_DIR: dataDir, BLUME_BUILD_CONCURRENCY: '0' } });
        builder = await buildTestApp({ ...common, env: { BLUME_DATA_DIR: dataDir, BLUME_BUILD_LEASE_SECONDS: '2' } });
        token = await createStaticSite(api.app, await signIn(api.app, 'alice'), 'docs');
      });
      after(async () => {
        await api.close();
        await builder.close();
        await shared.drop();
        await rm(dataDir, { recursive: true, force: true });
      });

      it(`stops a build running on another node ${how}`, async () => {
        const script = await endlessBuilder(dataDir);
        builder.app.deploy.builds.replaceBuilderForTests(script);
        await builder.app.deploy.builds.start();
        const waiting = uploadSource(api.app, token, 'docs', await tarball(DOCS));
        const id = await runningBuild(api.app, token, 'docs');
        const response = await cancel(api.app, token, 'docs', id);
        assert.equal(response.statusCode, 200, response.body);
        assert.equal(json<BuildBody>(response).state, 'canceled');
        assert.deepEqual(processesRunning(script), []);
        assert.equal((await waiting).statusCode, 409);
      });
    });
  }
}
