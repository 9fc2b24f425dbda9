import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../../test/helpers/app.js';
import { siteArchive, tarball } from '../../../test/helpers/archives.js';
import { createTestDatabase, testDatabases } from '../../../test/helpers/databases.js';
import { eventually } from '../../../test/helpers/eventually.js';
import {
  basicAuth,
  createStaticSite,
  deployApi,
  deployRelease,
  edge,
  uploadSource,
} from '../../../test/helpers/deploy.js';
import { createSite } from '../../core/sites/service.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../archive.js';
import { sweepBlobIntents } from '../blobs.js';
import { blobIntents, releases } from '../tables.js';
import { claimBuild, enqueueBuild, failAbandonedBuilds, readBuildLogs } from './queue.js';
import { queueSourceUpload, waitForBuild } from './service.js';
import { builds } from './tables.js';

interface BuildBody {
  id: string;
  state: string;
  trigger: string;
  release: string | null;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
  logs: { at: string; stream: string; line: string }[];
}

const GOOD_DOCS = {
  'index.md': '# Welcome\n\nRead the [guide](guide.md).\n',
  'guide.md': '---\ntitle: The guide\n---\n# Guide\n\nBack [home](index.md).\n',
};
const BROKEN_DOCS = {
  'index.md': '# Welcome\n\nFine line.\nSee [the missing page](missing.md).\n',
};

for (const database of testDatabases) {
  describe(`builds from Markdown [${database}]`, () => {
    let t: TestApp;
    let token: string;
    let firstRelease: string;

    before(async () => {
      t = await buildTestApp({ database });
      const alice = await signIn(t.app, 'alice');
      token = await createStaticSite(t.app, alice, 'docs');
      await t.app.deploy.builds.start();
      firstRelease = await deployRelease(
        t.app,
        token,
        'docs',
        await siteArchive({ 'index.html': '<h1>hand made</h1>' }),
      );
      const promoted = await deployApi(t.app, token, 'POST', '/api/deploy/docs/promote', { release: firstRelease });
      assert.equal(promoted.statusCode, 200, promoted.body);
    });
    after(() => t.close());

    it('builds a plain tar of Markdown into a release served on its preview host, not live', async () => {
      const response = await uploadSource(
        t.app,
        token,
        'docs',
        await tarball(Object.entries(GOOD_DOCS).map(([name, content]) => ({ name, content }))),
      );
      assert.equal(response.statusCode, 201, response.body);
      const release = json<{
        id: string;
        source: string;
        build_id: string;
        promotable: boolean;
        preview_url: string;
        git: null;
      }>(response);
      assert.equal(release.source, 'markdown');
      assert.match(release.build_id, /^[a-z0-9]{16}$/);
      assert.equal(release.promotable, true);
      assert.equal(release.git, null);
      const overview = json<{ aliases: { auth: string; live: string } }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/docs/releases'),
      );
      assert.equal(overview.aliases.live, firstRelease);
      const page = await edge(t.app, `r-${release.id}--docs.blume.test`, '/guide/', {
        authorization: basicAuth(overview.aliases.auth),
      });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /The guide/);
      assert.equal((await edge(t.app, 'docs.blume.test', '/')).body, '<h1>hand made</h1>');

      const detail = json<BuildBody>(
        await deployApi(t.app, token, 'GET', `/api/deploy/docs/builds/${release.build_id}`),
      );
      assert.equal(detail.state, 'succeeded');
      assert.equal(detail.trigger, 'upload');
      assert.equal(detail.release, release.id);
      assert.ok(detail.started_at && detail.finished_at);
      assert.ok(
        detail.logs.some((line) => /found 2 Markdown files/.test(line.line)),
        JSON.stringify(detail.logs),
      );
      assert.ok(detail.logs.every((line) => !Number.isNaN(Date.parse(line.at))));
    });

    it('answers 422 with the logs naming file and line when the build fails; nothing is released', async () => {
      const before = json<{ releases: unknown[] }>(await deployApi(t.app, token, 'GET', '/api/deploy/docs/releases'))
        .releases.length;
      const response = await uploadSource(t.app, token, 'docs', await siteArchive(BROKEN_DOCS));
      assert.equal(response.statusCode, 422, response.body);
      const problem = json<{ code: string; build_id: string; logs: { line: string }[]; detail: string }>(response);
      assert.equal(problem.code, 'build_failed');
      assert.ok(
        problem.logs.some((line) => line.line.includes('index.md:4')),
        JSON.stringify(problem.logs),
      );
      const after = json<{ releases: unknown[]; aliases: { live: string } }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/docs/releases'),
      );
      assert.equal(after.releases.length, before);
      assert.equal(after.aliases.live, firstRelease);
      const rows = await t.deps.database.db.select().from(releases).where(eq(releases.buildId, problem.build_id));
      assert.equal(rows.length, 0);
      const detail = json<BuildBody>(
        await deployApi(t.app, token, 'GET', `/api/deploy/docs/builds/${problem.build_id}`),
      );
      assert.equal(detail.state, 'failed');
      assert.equal(detail.release, null);
      assert.match(detail.error ?? '', /.+/);
      // The upload is gone from the blob store once its build ended, and its scratch folder too.
      assert.equal(await t.deps.blobs.has(`build-inputs/${problem.build_id}`), false);
      assert.deepEqual(await readdir(t.app.deploy.tmpDir), []);
    });

    it('refuses hostile archives before queueing anything', async () => {
      const count = async () =>
        (await t.deps.database.db.select().from(builds).where(eq(builds.siteId, 'docs'))).length;
      const queued = await count();
      const traversal = await uploadSource(
        t.app,
        token,
        'docs',
        await tarball([{ name: '../evil.md', content: '# x' }]),
      );
      assert.equal(traversal.statusCode, 422);
      assert.equal(json(traversal).code, 'archive_path_traversal');
      const link = await uploadSource(
        t.app,
        token,
        'docs',
        await siteArchive({ 'index.md': '# x' }, [{ name: 'passwd.md', type: 'symlink', linkname: '/etc/passwd' }]),
      );
      assert.equal(json(link).code, 'archive_symlink');
      const garbage = await uploadSource(
        t.app,
        token,
        'docs',
        Buffer.from('not an archive at all, just text'.repeat(40)),
      );
      assert.equal(garbage.statusCode, 400);
      assert.equal(await count(), queued);
      const unauthenticated = await portal(t.app, undefined, { method: 'POST', url: '/api/deploy/docs/source' });
      assert.equal(unauthenticated.statusCode, 401);
    });

    it('lists builds newest first with pagination headers and log tails', async () => {
      const response = await deployApi(t.app, token, 'GET', '/api/deploy/docs/builds?page_size=1');
      assert.equal(response.statusCode, 200, response.body);
      const body = json<{ builds: BuildBody[] }>(response);
      assert.equal(body.builds.length, 1);
      assert.equal(body.builds[0]!.state, 'failed');
      const meta = JSON.parse(String(response.headers['x-pagination'])) as { total: number; next_page: number };
      assert.equal(meta.total, 2);
      assert.equal(meta.next_page, 2);
      assert.match(String(response.headers.link), /rel="next"/);
      const all = json<{ builds: BuildBody[] }>(await deployApi(t.app, token, 'GET', '/api/deploy/docs/builds'));
      assert.deepEqual(
        all.builds.map((b) => b.state),
        ['failed', 'succeeded'],
      );
      assert.ok(all.builds[0]!.logs.length > 0 && all.builds[0]!.logs.length <= 20);
      const missing = await deployApi(t.app, token, 'GET', '/api/deploy/docs/builds/nosuchbuild');
      assert.equal(missing.statusCode, 404);
      assert.equal(json(missing).code, 'build_not_found');
    });

    it('names the uploaded source by an intent until its build is queued, so one never queued is swept', async () => {
      const ctx = {
        db: t.deps.database.db,
        blobs: t.deps.blobs,
        limits: DEFAULT_ARCHIVE_LIMITS,
        tmpDir: t.app.deploy.tmpDir,
      };
      const intents = () => t.deps.database.db.select().from(blobIntents);
      const source = await siteArchive(GOOD_DOCS);
      const queued = await queueSourceUpload(ctx, 'docs', Readable.from(source));
      assert.deepEqual(await intents(), [], 'a queued build leaves no intent');
      assert.equal((await waitForBuild(t.deps.database.db, 'docs', queued.id, 30_000)).state, 'succeeded');
      // The build's row cannot commit (no such site): its stored source stays named by the intent.
      await assert.rejects(
        queueSourceUpload(ctx, 'no-such-site', Readable.from(source)),
        /insert into "deploy_builds"/,
      );
      const [intent] = await intents();
      assert.equal(intent?.keys.length, 1);
      const key = intent.keys[0]!;
      assert.match(key, /^build-inputs\/[a-z0-9]{16}$/);
      assert.equal(await t.deps.blobs.has(key), true);
      assert.equal(await sweepBlobIntents(t.deps.database.db, t.deps.blobs), 1);
      assert.equal(await t.deps.blobs.has(key), false);
      assert.deepEqual(await intents(), []);
    });
  });

  describe(`build queue [${database}]`, () => {
    it('never hands one build to two workers', async () => {
      const testDb = await createTestDatabase(database);
      try {
        const { db } = testDb.handle;
        await createSite(db, null, { id: 'queue', kind: 'static', plan: 'free' });
        const ids = new Set<string>();
        for (let i = 0; i < 12; i++)
          ids.add((await enqueueBuild(db, { siteId: 'queue', trigger: 'upload', kind: 'markdown' })).id);
        const claimed: Record<string, string[]> = { a: [], b: [], c: [] };
        await Promise.all(
          Object.keys(claimed).map(async (worker) => {
            for (let job = await claimBuild(db, worker, 60_000); job; job = await claimBuild(db, worker, 60_000))
              claimed[worker]!.push(job.id);
          }),
        );
        const all = Object.values(claimed).flat();
        assert.equal(all.length, 12);
        assert.deepEqual(new Set(all), ids);
        const rows = await db.select().from(builds);
        for (const row of rows) {
          assert.equal(row.state, 'running');
          assert.equal(row.attempts, 1);
          assert.ok(claimed[row.leaseOwner!]!.includes(row.id));
        }
      } finally {
        await testDb.drop();
      }
    });

    it('fails a build whose worker died, with a log line saying so, and leaves live builds alone', async () => {
      const testDb = await createTestDatabase(database);
      try {
        const { db } = testDb.handle;
        await createSite(db, null, { id: 'queue', kind: 'static', plan: 'free' });
        const dead = await enqueueBuild(db, { siteId: 'queue', trigger: 'upload', kind: 'markdown' });
        await claimBuild(db, 'dead-worker', 50);
        const alive = await enqueueBuild(db, { siteId: 'queue', trigger: 'upload', kind: 'markdown' });
        await claimBuild(db, 'live-worker', 60_000);
        // Sweeps until the 50 ms lease has lapsed on the database clock; the live build is never taken.
        const failed = await eventually('the dead worker’s lease to lapse', async () => {
          const swept = await failAbandonedBuilds(db, 'the worker running this build stopped answering');
          return swept.length > 0 ? swept : undefined;
        });
        assert.deepEqual(
          failed.map((row) => row.id),
          [dead.id],
        );
        const [row] = await db.select().from(builds).where(eq(builds.id, dead.id));
        assert.equal(row!.state, 'failed');
        assert.ok(row!.finishedAt);
        const logs = await readBuildLogs(db, dead.id);
        assert.match(logs.at(-1)!.line, /build failed: the worker running this build stopped answering/);
        const [other] = await db.select().from(builds).where(eq(builds.id, alive.id));
        assert.equal(other!.state, 'running');
      } finally {
        await testDb.drop();
      }
    });
  });
}

describe('build worker start on the embedded database', () => {
  it('fails builds left running by the previous process', async () => {
    const t = await buildTestApp({ database: 'pglite' });
    try {
      const { db } = t.deps.database;
      await createSite(db, null, { id: 'restart', kind: 'static', plan: 'free' });
      const stuck = await enqueueBuild(db, { siteId: 'restart', trigger: 'upload', kind: 'markdown' });
      await claimBuild(db, 'previous-process', 3_600_000);
      await t.app.deploy.builds.start();
      const [row] = await db.select().from(builds).where(eq(builds.id, stuck.id));
      assert.equal(row!.state, 'failed');
      assert.match(row!.error ?? '', /Blume restarted while this build was running/);
    } finally {
      await t.close();
    }
  });
});
