// Typed clients as an integrator makes them: every served OpenAPI document through openapi-typescript
// (with docs/api-clients.md's own generate.ts and localhost.ts, word for word), one `tsc --strict`
// over the clients and the calls below, then the calls against a listening server whose sites
// answer on `*.localhost`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../src/core/accounts/service.js';
import { createSite } from '../src/core/sites/service.js';
import { siteArchive } from './helpers/archives.js';
import { buildTestApp } from './helpers/app.js';
import { testDatabases } from './helpers/databases.js';
import { docFiles } from './helpers/doc-commands.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCUMENTS = ['portal', 'deploy', 'instances', 'purchase', 'forum', 'cms', 'helpdesk'];

// Compiled with the generated types: each call's arguments and answers are checked by tsc.
const CALLS = `
import createClient from 'openapi-fetch';
import type { paths as Cms, components as CmsComponents } from './cms.js';
import type { paths as Deploy } from './deploy.js';
import type { paths as Forum } from './forum.js';
import type { paths as Helpdesk } from './helpdesk.js';
import type { paths as Instances } from './instances.js';
import type { paths as Portal } from './portal.js';
import type { paths as Purchase } from './purchase.js';
import { localFetch } from './localhost.js';

type ErrorCode = CmsComponents['schemas']['Problem']['code'];
// A typed error: the code is a list of names, not any string.
const codeIsTyped: string extends ErrorCode ? false : true = true;

export interface Setup { origin: string; site: string; staticSite: string; cookie: string; apiKey: string; deployToken: string; archive: Uint8Array<ArrayBuffer> }

export async function run(s: Setup) {
  const site = \`http://\${s.site}.localhost:\${new URL(s.origin).port}\`;
  const portal = createClient<Portal>({ baseUrl: s.origin, fetch: localFetch, headers: { cookie: s.cookie } });
  const sites = await portal.GET('/api/sites');
  const cms = createClient<Cms>({ baseUrl: site, fetch: localFetch, headers: { authorization: \`Bearer \${s.apiKey}\` } });
  const created = await cms.POST('/api/cms/v1/entries/articles', {
    body: { slug: 'launch-day', status: 'published', data: { title: 'Launch day', body: 'We are live.' } },
  });
  await cms.POST('/api/cms/v1/entries/articles', { body: { slug: 'other', status: 'published', data: { title: 'Other' } } });
  const filtered = await cms.GET('/api/cms/v1/entries/articles', {
    params: { query: { 'filter[title][contains]': 'Launch', 'filter[slug][ne]': 'other' } },
  });
  // The generic path's flat filter map, as openapi-fetch sends it: filter[slug]=launch-day.
  const generic = await cms.GET('/api/cms/v1/entries/{type}', {
    params: { path: { type: 'articles' }, query: { filter: { slug: 'launch-day' } } },
  });
  const missing = await cms.GET('/api/cms/v1/entries/articles/{id}', { params: { path: { id: 'no-such-entry' } } });
  const forum = createClient<Forum>({ baseUrl: site, fetch: localFetch });
  const topics = await forum.GET('/api/forum/v1/topics');
  const deploy = createClient<Deploy>({ baseUrl: s.origin, fetch: localFetch, headers: { authorization: \`Bearer \${s.deployToken}\` } });
  const upload = await deploy.POST('/api/deploy/{id}', {
    params: { path: { id: s.staticSite } },
    body: { archive: new Blob([s.archive], { type: 'application/gzip' }) },
    bodySerializer: (body) => {
      const form = new FormData();
      form.append('archive', body.archive, 'site.tar.gz');
      return form;
    },
  });
  const releases = await deploy.GET('/api/deploy/{id}/releases', { params: { path: { id: s.staticSite } } });
  // The other APIs compile, and answer a typed error without their credential.
  const helpdesk = await createClient<Helpdesk>({ baseUrl: site, fetch: localFetch }).GET('/api/helpdesk/v1/tickets');
  const instances = createClient<Instances>({ baseUrl: s.origin, fetch: localFetch });
  const purchase = createClient<Purchase>({ baseUrl: s.origin, fetch: localFetch });
  return {
    codeIsTyped,
    sites: sites.data?.map((row) => row.id),
    created: created.data?.slug,
    etag: created.response.headers.get('etag'),
    filtered: filtered.data?.map((entry) => entry.data.title),
    generic: generic.data?.map((entry) => entry.slug),
    missing: missing.error?.code,
    topics: topics.error?.code,
    upload: upload.data?.id,
    live: releases.data?.releases.map((release) => release.id),
    helpdesk: helpdesk.error?.code,
    clients: [typeof instances.GET, typeof purchase.GET],
  };
}
`;

describe('typed clients generated from every OpenAPI document', () => {
  let project: string;
  let run: (setup: Record<string, unknown>) => Promise<Record<string, unknown>>;

  before(async () => {
    project = await mkdtemp(path.join(tmpdir(), 'blume-clients-'));
    await symlink(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    const files = await docFiles('docs/api-clients.md');
    assert.deepEqual(Object.keys(files).sort(), ['example.ts', 'generate.ts', 'localhost.ts', 'upload.ts']);
    for (const [name, code] of Object.entries(files)) await writeFile(path.join(project, name), code);
    await writeFile(path.join(project, 'calls.ts'), CALLS);
    await writeFile(path.join(project, 'package.json'), '{"type":"module"}\n');
    const { generate } = (await import(pathToFileURL(path.join(project, 'generate.ts')).href)) as {
      generate(document: string, file: string): Promise<void>;
    };
    for (const name of DOCUMENTS)
      await generate(
        await readFile(path.join(ROOT, `docs/api/${name}.json`), 'utf8'),
        path.join(project, `${name}.d.ts`),
      );
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2023',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2023'],
          types: ['node'],
          skipLibCheck: true,
        },
        include: ['*.ts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const compiled = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
    ({ run } = (await import(pathToFileURL(path.join(project, 'calls.ts')).href)) as { run: typeof run });
  });
  after(() => rm(project, { recursive: true, force: true }));

  for (const database of testDatabases) {
    it(`list, create, filter, upload and a typed error against a live server (${database})`, async () => {
      const t = await buildTestApp({ database, env: { BLUME_PUBLIC_URL: 'http://localhost' } });
      try {
        const db = t.app.deps.database.db;
        const owner = await createAccount(db, {
          username: 'owner',
          email: 'owner@example.test',
          password: 'a long password',
        });
        await createSite(db, owner, { id: 'comm', kind: 'community', plan: 'pro' });
        await createSite(db, owner, { id: 'hello', kind: 'static' });
        await t.app.services.epochs.announce();
        const login = await t.app.inject({
          method: 'POST',
          url: '/api/auth/login',
          headers: { host: 'localhost' },
          payload: { login: 'owner', password: 'a long password' },
        });
        const cookie = `blume_session=${login.cookies.find((c) => c.name === 'blume_session')!.value}`;
        const mint = async (url: string, payload: Record<string, unknown>) => {
          const response = await t.app.inject({ method: 'POST', url, headers: { host: 'localhost', cookie }, payload });
          assert.equal(response.statusCode, 201, response.body);
          return response.json<{ key?: string; token?: string }>();
        };
        const apiKey = (await mint('/api/sites/comm/api-keys', { name: 'client', scopes: ['cms-write'] })).key!;
        const deployToken = (await mint('/api/sites/hello/deploy-tokens', { name: 'client' })).token!;
        await t.app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = t.app.server.address() as AddressInfo;
        const result = await run({
          origin: `http://localhost:${port}`,
          site: 'comm',
          staticSite: 'hello',
          cookie,
          apiKey,
          deployToken,
          archive: new Uint8Array(await siteArchive({ 'index.html': '<h1>hi</h1>' })),
        });
        assert.equal(result.codeIsTyped, true);
        assert.deepEqual((result.sites as string[]).sort(), ['comm', 'hello']);
        assert.equal(result.created, 'launch-day', JSON.stringify(result));
        assert.match(String(result.etag), /^(W\/)?".+"$/);
        assert.deepEqual(result.filtered, ['Launch day']);
        assert.deepEqual(result.generic, ['launch-day']);
        assert.equal(result.missing, 'entry_not_found');
        // Anonymous forum reads are off unless the site turns them on.
        assert.equal(result.topics, 'authentication_required');
        assert.match(String(result.upload), /.+/);
        assert.deepEqual(result.live, [result.upload]);
        assert.equal(result.helpdesk, 'authentication_required');
      } finally {
        await t.close();
      }
    });
  }
});
