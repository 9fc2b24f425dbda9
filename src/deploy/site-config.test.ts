// A static site's build environment variables and custom domains through the deploy API: CRUD with
// a deploy token and with team sessions by role, a secret never read back, a docs build that sees
// its variables (secrets masked in its log), and the edge serving the live release on a custom
// domain, with the host check a TLS proxy asks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { siteMembers } from '../core/sites/tables.js';
import { siteEnvVars } from './tables.js';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { tarball } from '../../test/helpers/archives.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createStaticSite, deployApi, edge, uploadSource } from '../../test/helpers/deploy.js';

interface EnvVarBody {
  name: string;
  context: string;
  value: string | null;
  secret: boolean;
}

for (const database of testDatabases) {
  describe(`build environment variables and custom domains [${database}]`, () => {
    let t: TestApp;
    let owner: Actor;
    let token: string;
    let otherToken: string;
    let viewer: Actor;
    let developer: Actor;

    before(async () => {
      t = await buildTestApp({ database });
      owner = await signIn(t.app, 'olga');
      token = await createStaticSite(t.app, owner, 'handbook');
      otherToken = await createStaticSite(t.app, owner, 'elsewhere');
      viewer = await signIn(t.app, 'vera');
      developer = await signIn(t.app, 'dev');
      await t.app.deps.database.db.insert(siteMembers).values([
        { siteId: 'handbook', userId: viewer.user.id, role: 'viewer' },
        { siteId: 'handbook', userId: developer.user.id, role: 'developer' },
      ]);
      await t.app.deploy.builds.start();
    });
    after(() => t.close());

    it('sets, lists and deletes variables per context; a secret value is never returned', async () => {
      const set = (name: string, payload: object) =>
        deployApi(t.app, token, 'PUT', `/api/deploy/handbook/env/${name}`, payload);
      const created = await set('GREETING', { value: 'Hello from all' });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(
        { ...json<EnvVarBody>(created), updated_at: undefined },
        { name: 'GREETING', context: 'all', value: 'Hello from all', secret: false, updated_at: undefined },
      );
      assert.equal((await set('GREETING', { value: 'Hello, production', context: 'production' })).statusCode, 201);
      assert.equal((await set('GREETING', { value: 'Hello again', context: 'all' })).statusCode, 200);
      const secret = await set('API_TOKEN', { value: 'sk-very-secret-value', secret: true });
      assert.equal(secret.statusCode, 201, secret.body);
      assert.equal(json<EnvVarBody>(secret).value, null);

      const listed = await deployApi(t.app, token, 'GET', '/api/deploy/handbook/env');
      assert.equal(listed.statusCode, 200);
      assert.doesNotMatch(listed.body, /sk-very-secret-value/);
      assert.deepEqual(
        json<EnvVarBody[]>(listed).map((v) => [v.name, v.context, v.value, v.secret]),
        [
          ['API_TOKEN', 'all', null, true],
          ['GREETING', 'all', 'Hello again', false],
          ['GREETING', 'production', 'Hello, production', false],
        ],
      );
      // Nothing in the stored row reads as the value either: it is sealed.
      const rows = await t.app.deps.database.db.select().from(siteEnvVars);
      assert.equal(rows.length, 3);
      assert.ok(rows.every((row) => !row.valueSealed.includes('sk-very-secret-value')));

      const reserved = await set('NODE_OPTIONS', { value: '--allow-fs-read=*' });
      assert.equal(reserved.statusCode, 422);
      assert.equal(json(reserved).code, 'env_var_reserved');
      assert.equal(json(await set('1BAD', { value: 'x' })).code, 'invalid_env_var_name');

      const removed = await deployApi(t.app, token, 'DELETE', '/api/deploy/handbook/env/GREETING?context=production');
      assert.equal(removed.statusCode, 204);
      const again = await deployApi(t.app, token, 'DELETE', '/api/deploy/handbook/env/GREETING?context=production');
      assert.equal(json(again).code, 'env_var_not_found');
      assert.equal((await set('GREETING', { value: 'Hello, production', context: 'production' })).statusCode, 201);
    });

    it('scopes tokens to their site and sessions to their role', async () => {
      const foreign = await deployApi(t.app, otherToken, 'GET', '/api/deploy/handbook/env');
      assert.equal(foreign.statusCode, 403);
      assert.equal(json(foreign).code, 'token_site_mismatch');
      const asViewer = await portal(t.app, viewer, { method: 'GET', url: '/api/deploy/handbook/env' });
      assert.equal(asViewer.statusCode, 200);
      assert.doesNotMatch(asViewer.body, /sk-very-secret-value/);
      const viewerWrite = await portal(t.app, viewer, {
        method: 'PUT',
        url: '/api/deploy/handbook/env/COLOUR',
        payload: { value: 'blue' },
      });
      assert.equal(viewerWrite.statusCode, 403);
      assert.equal(json(viewerWrite).code, 'site_role_required');
      const developerWrite = await portal(t.app, developer, {
        method: 'PUT',
        url: '/api/deploy/handbook/env/COLOUR',
        payload: { value: 'blue' },
      });
      assert.equal(developerWrite.statusCode, 201, developerWrite.body);
      const stranger = await signIn(t.app, 'stranger');
      const hidden = await portal(t.app, stranger, { method: 'GET', url: '/api/deploy/handbook/env' });
      assert.equal(hidden.statusCode, 404);
      assert.equal(json(hidden).code, 'site_not_found');
    });

    it('gives a build its context values, substitutes them in pages and masks secrets in the log', async () => {
      const docs = {
        'index.md':
          '# Handbook\n\n{{ env.GREETING }} and {{ env.COLOUR }}.\n\nUnknown stays: {{ env.MISSING }}.\n\nSecret: {{ env.API_TOKEN }}\n',
      };
      const response = await uploadSource(
        t.app,
        token,
        'handbook',
        await tarball(Object.entries(docs).map(([name, content]) => ({ name, content }))),
      );
      assert.equal(response.statusCode, 201, response.body);
      const release = json<{ id: string; build_id: string }>(response);
      const promoted = await deployApi(t.app, token, 'POST', '/api/deploy/handbook/promote', { release: release.id });
      assert.equal(promoted.statusCode, 200, promoted.body);
      const page = await edge(t.app, 'handbook.blume.test', '/');
      assert.match(page.body, /Hello, production and blue\./);
      assert.match(page.body, /Unknown stays: \{\{ env\.MISSING \}\}/);
      const build = await deployApi(t.app, token, 'GET', `/api/deploy/handbook/builds/${release.build_id}`);
      assert.match(build.body, /environment variables \(production\): API_TOKEN, COLOUR, GREETING/);
      assert.doesNotMatch(build.body, /sk-very-secret-value/);
    });

    it('validates domains, serves the live release on one, and answers the host check', async () => {
      const add = (domain: string, as = token) =>
        deployApi(t.app, as, 'POST', '/api/deploy/handbook/domains', { domain });
      assert.equal(json(await add('not a domain')).code, 'invalid_domain');
      assert.equal(json(await add('localhost')).code, 'invalid_domain');
      assert.equal(json(await add('10.0.0.1')).code, 'invalid_domain');
      assert.equal(json(await add('blume.test')).code, 'domain_reserved');
      assert.equal(json(await add('docs.blume.test')).code, 'domain_reserved');
      const created = await add('Docs.Example.COM.');
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(
        { ...json<Record<string, unknown>>(created), created_at: undefined },
        { domain: 'docs.example.com', site: 'handbook', url: 'https://docs.example.com', created_at: undefined },
      );
      const twice = await add('docs.example.com');
      assert.equal(twice.statusCode, 409);
      assert.equal(twice.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(json(twice).code, 'domain_taken');
      const elsewhere = await deployApi(t.app, otherToken, 'POST', '/api/deploy/elsewhere/domains', {
        domain: 'docs.example.com',
      });
      assert.equal(json(elsewhere).code, 'domain_taken');

      const served = await edge(t.app, 'docs.example.com', '/');
      assert.equal(served.statusCode, 200);
      assert.match(served.body, /Hello, production and blue\./);
      const check = await portal(t.app, undefined, {
        method: 'GET',
        url: '/api/domains/check?domain=docs.example.com',
      });
      assert.equal(check.statusCode, 200);
      assert.deepEqual(json(check), { domain: 'docs.example.com', site: 'handbook' });
      const unknown = await portal(t.app, undefined, {
        method: 'GET',
        url: '/api/domains/check?domain=nope.example.com',
      });
      assert.equal(unknown.statusCode, 404);
      assert.equal(json(unknown).code, 'domain_not_found');
      // An unknown host outside the sites domain is still the portal.
      const portalPage = await edge(t.app, 'unknown.example.org', '/api/domains/check?domain=docs.example.com');
      assert.equal(portalPage.statusCode, 200);

      const listed = await portal(t.app, viewer, { method: 'GET', url: '/api/deploy/handbook/domains' });
      assert.deepEqual(
        json<{ domain: string }[]>(listed).map((d) => d.domain),
        ['docs.example.com'],
      );
      const removed = await deployApi(t.app, token, 'DELETE', '/api/deploy/handbook/domains/docs.example.com');
      assert.equal(removed.statusCode, 204);
      assert.equal(
        (await portal(t.app, undefined, { method: 'GET', url: '/api/domains/check?domain=docs.example.com' }))
          .statusCode,
        404,
      );
      const gone = await edge(t.app, 'docs.example.com', '/api/domains/check?domain=docs.example.com');
      assert.equal(gone.statusCode, 404, 'the domain is the portal again');
    });

    it('keeps community sites out', async () => {
      const created = await portal(t.app, owner, {
        method: 'POST',
        url: '/api/sites',
        payload: { id: 'town', kind: 'community' },
      });
      assert.equal(created.statusCode, 201);
      const refused = await portal(t.app, owner, {
        method: 'POST',
        url: '/api/deploy/town/domains',
        payload: { domain: 'town.example.com' },
      });
      assert.equal(json(refused).code, 'site_not_static');
    });
  });
}
