import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../../test/helpers/app.js';
import { testDatabases } from '../../../test/helpers/databases.js';
import { basicAuth, createStaticSite, deployApi, edge } from '../../../test/helpers/deploy.js';
import { eventually } from '../../../test/helpers/eventually.js';
import { startGitHost, type GitHost, type WorkingCopy } from '../../../test/helpers/git-server.js';

interface Connected {
  repository: string;
  branch: string;
  path: string;
  kind: string;
  webhook_url: string;
  webhook_secret: string;
}

interface BuildBody {
  id: string;
  state: string;
  trigger: string;
  git: { repository: string; branch: string; commit: string } | null;
  release: string | null;
  error: string | null;
  logs: { line: string }[];
}

interface ReleaseBody {
  id: string;
  source: string;
  promotable: boolean;
  build_id: string;
  git: { repository: string; branch: string; commit: string };
}

for (const database of testDatabases) {
  describe(`connected repository and push builds [${database}]`, () => {
    let host: GitHost;
    let repo: WorkingCopy;
    let t: TestApp;
    let token: string;
    let secret: string;
    let delivery = 0;

    before(async () => {
      host = await startGitHost();
      repo = await host.createRepository('acme/handbook');
      t = await buildTestApp({ database, env: { BLUME_GIT_BASE_URL: host.baseUrl } });
      const alice = await signIn(t.app, 'alice');
      token = await createStaticSite(t.app, alice, 'handbook');
      await createStaticSite(t.app, alice, 'other');
      await t.app.deploy.builds.start();
    });
    after(async () => {
      await t.close();
      await host.close();
    });

    const hook = (
      site: string,
      event: string,
      payload: unknown,
      options: { secret?: string; delivery?: string } = {},
    ): Promise<LightMyRequestResponse> => {
      const body = Buffer.from(JSON.stringify(payload));
      const signature = `sha256=${createHmac('sha256', options.secret ?? secret)
        .update(body)
        .digest('hex')}`;
      delivery += 1;
      return portal(t.app, undefined, {
        method: 'POST',
        url: `/api/deploy/${site}/github/webhook`,
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': options.delivery ?? `delivery-${delivery}`,
          'x-hub-signature-256': signature,
        },
        payload: body,
      });
    };
    const push = (branch: string, commit: string, options: { delivery?: string; repository?: string } = {}) =>
      hook(
        'handbook',
        'push',
        {
          ref: `refs/heads/${branch}`,
          after: commit,
          deleted: false,
          repository: { full_name: options.repository ?? 'acme/handbook' },
        },
        options,
      );

    const waitForBuild = (id: string): Promise<BuildBody> =>
      eventually(`build ${id} to end`, async () => {
        const build = json<BuildBody>(await deployApi(t.app, token, 'GET', `/api/deploy/handbook/builds/${id}`));
        return build.state !== 'queued' && build.state !== 'running' ? build : undefined;
      });
    const releaseOf = async (id: string): Promise<ReleaseBody> => {
      const list = json<{ releases: ReleaseBody[] }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/handbook/releases'),
      );
      const release = list.releases.find((r) => r.id === id);
      assert.ok(release, `release ${id} is listed`);
      return release;
    };

    it('connects a repository and shows the webhook secret only in that answer', async () => {
      const response = await deployApi(t.app, token, 'PUT', '/api/deploy/handbook/github', {
        repository: 'acme/handbook',
        branch: 'main',
        path: 'docs',
        kind: 'markdown',
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = json<Connected>(response);
      assert.equal(body.webhook_url, 'http://blume.test/api/deploy/handbook/github/webhook');
      assert.match(body.webhook_secret, /^[0-9a-f]{64}$/);
      assert.deepEqual(
        { ...body, webhook_secret: undefined, webhook_url: undefined },
        {
          repository: 'acme/handbook',
          branch: 'main',
          path: 'docs',
          kind: 'markdown',
          webhook_secret: undefined,
          webhook_url: undefined,
        },
      );
      secret = body.webhook_secret;
      const shown = await deployApi(t.app, token, 'GET', '/api/deploy/handbook/github');
      assert.equal(json(shown).webhook_secret, undefined);
      const bad = await deployApi(t.app, token, 'PUT', '/api/deploy/handbook/github', {
        repository: 'not a repo',
        branch: 'main',
        kind: 'markdown',
      });
      assert.equal(bad.statusCode, 400);
      const traversal = await deployApi(t.app, token, 'PUT', '/api/deploy/handbook/github', {
        repository: 'acme/x',
        branch: 'main',
        path: '../up',
        kind: 'markdown',
      });
      assert.equal(json(traversal).code, 'invalid_repository_path');
      const anonymous = await portal(t.app, undefined, {
        method: 'PUT',
        url: '/api/deploy/handbook/github',
        payload: { repository: 'acme/x', branch: 'main', kind: 'static' },
      });
      assert.equal(anonymous.statusCode, 401);
    });

    it('refuses a wrong signature, unknown sites and repositories; answers ping; ignores other events', async () => {
      const forged = await hook('handbook', 'push', { ref: 'refs/heads/main' }, { secret: 'not-the-secret' });
      assert.equal(forged.statusCode, 401);
      assert.equal(json(forged).code, 'invalid_signature');
      assert.ok(forged.headers['www-authenticate']);
      const unsigned = await portal(t.app, undefined, {
        method: 'POST',
        url: '/api/deploy/handbook/github/webhook',
        headers: { 'content-type': 'application/json', 'x-github-event': 'ping' },
        payload: '{}',
      });
      assert.equal(unsigned.statusCode, 401);
      const notConnected = await hook('other', 'ping', { zen: 'hi' });
      assert.equal(notConnected.statusCode, 404);
      assert.equal(json(notConnected).code, 'github_not_connected');
      const noSite = await hook('nosuchsite', 'ping', {});
      assert.equal(noSite.statusCode, 404);
      const foreign = await push('main', 'a'.repeat(40), { repository: 'mallory/handbook' });
      assert.equal(foreign.statusCode, 404);
      assert.equal(json(foreign).code, 'repository_not_connected');
      const ping = await hook('handbook', 'ping', { zen: 'Keep it logically awesome.' });
      assert.equal(ping.statusCode, 200);
      assert.equal(json(ping).status, 'pong');
      const issues = await hook('handbook', 'issues', { action: 'opened' });
      assert.equal(issues.statusCode, 202);
      assert.equal(json(issues).status, 'ignored');
      const tag = await hook('handbook', 'push', {
        ref: 'refs/tags/v1',
        after: 'b'.repeat(40),
        repository: { full_name: 'acme/handbook' },
      });
      assert.equal(json(tag).status, 'ignored');
      const builds = json<{ builds: unknown[] }>(await deployApi(t.app, token, 'GET', '/api/deploy/handbook/builds'));
      assert.equal(builds.builds.length, 0);
    });

    it('builds a push to the connected branch into a promotable release, fetched over git; a redelivery builds nothing', async () => {
      await repo.commitAndPush(
        'main',
        { 'docs/index.md': '# Handbook\n\nSee [setup](setup.md).\n', 'docs/setup.md': '# Setup\n' },
        'first',
        '2024-03-01T10:00:00Z',
      );
      const commit = await repo.commitAndPush(
        'main',
        { 'docs/setup.md': '# Setup\n\nRun it.\n', 'README.md': 'not part of the docs folder' },
        'second',
        '2025-06-15T08:30:00Z',
      );
      const response = await push('main', commit, { delivery: 'main-1' });
      assert.equal(response.statusCode, 202, response.body);
      const queued = json<{ status: string; build_id: string; promotable: boolean }>(response);
      assert.equal(queued.status, 'queued');
      assert.equal(queued.promotable, true);
      const build = await waitForBuild(queued.build_id);
      assert.equal(build.state, 'succeeded', JSON.stringify(build.logs));
      assert.equal(build.trigger, 'push');
      assert.deepEqual(build.git, { repository: 'acme/handbook', branch: 'main', commit });
      assert.ok(host.requests.some((line) => line.startsWith('POST /acme/handbook.git/git-upload-pack')));
      const release = await releaseOf(build.release!);
      assert.equal(release.source, 'markdown');
      assert.equal(release.promotable, true);
      assert.equal(release.build_id, build.id);
      assert.deepEqual(release.git, { repository: 'acme/handbook', branch: 'main', commit });

      const again = await push('main', commit, { delivery: 'main-1' });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(json(again), {
        status: 'duplicate',
        reason: 'this delivery was handled already',
        build_id: build.id,
      });
      // A captured push replayed under a new (unsigned) delivery id is the same push.
      const replayed = await push('main', commit, { delivery: 'replayed-1' });
      assert.equal(replayed.statusCode, 200);
      assert.deepEqual(json(replayed), {
        status: 'duplicate',
        reason: 'this delivery was handled already',
        build_id: build.id,
      });
      const builds = json<{ builds: unknown[] }>(await deployApi(t.app, token, 'GET', '/api/deploy/handbook/builds'));
      assert.equal(builds.builds.length, 1);

      // Nothing went live by itself; promote does it.
      const overview = json<{ aliases: { live: string | null; auth: string } }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/handbook/releases'),
      );
      assert.equal(overview.aliases.live, null);
      const promoted = await deployApi(t.app, token, 'POST', '/api/deploy/handbook/promote', { release: release.id });
      assert.equal(promoted.statusCode, 200, promoted.body);
      const page = await edge(t.app, 'handbook.blume.test', '/setup/');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Setup/);
      // Each page is dated by the last commit that changed its source, read from the history.
      assert.match(page.body, /Last updated <time datetime="2025-06-15T08:30:00.000Z">/);
      const home = await edge(t.app, 'handbook.blume.test', '/');
      assert.match(home.body, /Last updated <time datetime="2024-03-01T10:00:00.000Z">/);
      const sitemap = await edge(t.app, 'handbook.blume.test', '/sitemap.xml');
      assert.match(sitemap.body, /<lastmod>2025-06-15T08:30:00.000Z<\/lastmod>/);
      assert.ok(
        host.requests.filter((line) => line.startsWith('POST /acme/handbook.git/git-upload-pack')).length >= 2,
        'the history is fetched besides the commit',
      );
      assert.ok(
        build.logs.some((line) => /read the last change of 2 files/.test(JSON.stringify(line))),
        JSON.stringify(build.logs),
      );
    });

    it('builds a push to another branch into a preview-only release that promote refuses', async () => {
      const commit = await repo.commitAndPush('feature/new-page', { 'docs/new.md': '# Brand new\n' });
      const response = await push('feature/new-page', commit);
      assert.equal(response.statusCode, 202, response.body);
      const queued = json<{ build_id: string; promotable: boolean }>(response);
      assert.equal(queued.promotable, false);
      const build = await waitForBuild(queued.build_id);
      assert.equal(build.state, 'succeeded', JSON.stringify(build.logs));
      const release = await releaseOf(build.release!);
      assert.equal(release.promotable, false);
      assert.equal(release.git.branch, 'feature/new-page');
      const overview = json<{ aliases: { live: string; auth: string } }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/handbook/releases'),
      );
      const preview = await edge(t.app, `r-${release.id}--handbook.blume.test`, '/new/', {
        authorization: basicAuth(overview.aliases.auth),
      });
      assert.equal(preview.statusCode, 200);
      const refused = await deployApi(t.app, token, 'POST', '/api/deploy/handbook/promote', { release: release.id });
      assert.equal(refused.statusCode, 409);
      assert.equal(json(refused).code, 'release_not_promotable');
      const after = json<{ aliases: { live: string } }>(
        await deployApi(t.app, token, 'GET', '/api/deploy/handbook/releases'),
      );
      assert.equal(after.aliases.live, overview.aliases.live);

      // The branch moved on and was then reset to this commit: a new push (another `before`), so it
      // builds again; only the exact push is a replay.
      const moved = {
        ref: 'refs/heads/feature/new-page',
        before: 'b'.repeat(40),
        after: commit,
        deleted: false,
        repository: { full_name: 'acme/handbook' },
      };
      const reset = await hook('handbook', 'push', moved);
      assert.equal(reset.statusCode, 202, reset.body);
      assert.equal((await waitForBuild(json<{ build_id: string }>(reset).build_id)).state, 'succeeded');
      const replay = await hook('handbook', 'push', moved);
      assert.equal(json(replay).status, 'duplicate');
    });

    it('serves a static folder as is, and fails the build when the repository holds a symlink', async () => {
      const connected = json<Connected>(
        await deployApi(t.app, token, 'PUT', '/api/deploy/handbook/github', {
          repository: 'acme/handbook',
          branch: 'main',
          path: '/public/',
          kind: 'static',
        }),
      );
      assert.equal(connected.path, 'public');
      assert.notEqual(connected.webhook_secret, secret);
      secret = connected.webhook_secret;
      const commit = await repo.commitAndPush('main', {
        'public/index.html': '<h1>static</h1>',
        'public/_headers': '/*\n  X-Test: yes\n',
      });
      const build = await waitForBuild(json<{ build_id: string }>(await push('main', commit)).build_id);
      assert.equal(build.state, 'succeeded', JSON.stringify(build.logs));
      const release = await releaseOf(build.release!);
      assert.equal(release.source, 'static');

      await symlink('/etc/passwd', path.join(repo.dir, 'public', 'passwd.html'));
      const linked = await repo.commitAndPush('main', {}, 'add a link');
      const failed = await waitForBuild(json<{ build_id: string }>(await push('main', linked)).build_id);
      assert.equal(failed.state, 'failed');
      assert.match(failed.error ?? '', /archive_symlink/);
      assert.equal(failed.release, null);
    });

    it('disconnects; later pushes are refused', async () => {
      const removed = await deployApi(t.app, token, 'DELETE', '/api/deploy/handbook/github');
      assert.equal(removed.statusCode, 204);
      const response = await hook('handbook', 'ping', {});
      assert.equal(response.statusCode, 404);
    });
  });
}
