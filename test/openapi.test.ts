// The OpenAPI documents are generated from the route schemas; the committed copies in docs/api/
// must match, so an API change shows up in review. `npm run openapi:update` rewrites them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createSite } from '../src/core/sites/service.js';
import { buildTestApp, PORTAL_HOST, type TestApp } from './helpers/app.js';

const SURFACES = [
  { name: 'portal', host: PORTAL_HOST, url: '/api/openapi.json' },
  { name: 'deploy', host: PORTAL_HOST, url: '/api/deploy/openapi.json' },
  { name: 'instances', host: PORTAL_HOST, url: '/api/instances/openapi.json' },
  { name: 'purchase', host: PORTAL_HOST, url: '/api/purchase/v1/openapi.json' },
  { name: 'forum', host: `community.${PORTAL_HOST}`, url: '/api/forum/v1/openapi.json' },
  { name: 'cms', host: `community.${PORTAL_HOST}`, url: '/api/cms/v1/openapi.json' },
  { name: 'helpdesk', host: `community.${PORTAL_HOST}`, url: '/api/helpdesk/v1/openapi.json' },
];

const update = process.env.UPDATE_SNAPSHOTS === '1';

describe('OpenAPI documents', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ database: 'pglite' });
    await createSite(t.app.deps.database.db, null, { id: 'community', kind: 'community', plan: 'pro' });
  });
  after(() => t.close());

  for (const surface of SURFACES) {
    it(`${surface.name} matches docs/api/${surface.name}.json`, async () => {
      const response = await t.app.inject({ method: 'GET', url: surface.url, headers: { host: surface.host } });
      assert.equal(response.statusCode, 200);
      const doc = response.json() as { openapi: string; paths: Record<string, unknown> };
      assert.equal(doc.openapi, '3.1.0');
      assert.ok(Object.keys(doc.paths).length > 0);
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      const file = new URL(`../docs/api/${surface.name}.json`, import.meta.url);
      if (update) await writeFile(file, text);
      const committed = await readFile(file, 'utf8').catch(() => '');
      assert.equal(text, committed, `docs/api/${surface.name}.json is stale: run \`npm run openapi:update\``);
    });
  }
});

describe('OpenAPI map', () => {
  it('registers one document per surface, and each documents every route under its prefix', async () => {
    const t = await buildTestApp({ database: 'pglite' });
    try {
      assert.deepEqual(
        t.app.apiDocuments.map((entry) => entry.path).sort(),
        SURFACES.map((surface) => surface.url).sort(),
      );
      for (const entry of t.app.apiDocuments) {
        const doc = entry.document() as { paths: Record<string, Record<string, unknown>> };
        const documented = new Set(
          Object.entries(doc.paths).flatMap(([route, item]) =>
            Object.keys(item).map((method) => `${method.toUpperCase()} ${route.replace(/\{([^}]+)\}/g, ':$1')}`),
          ),
        );
        assert.ok(entry.routes.length > 0, entry.path);
        assert.deepEqual(
          entry.routes.filter((route) => !documented.has(route)).sort(),
          [],
          `routes missing from ${entry.path}`,
        );
      }
    } finally {
      await t.close();
    }
  });
});

describe('OpenAPI lint', () => {
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
  for (const surface of SURFACES) {
    it(`finds no error and no warning in docs/api/${surface.name}.json with the recommended ruleset (redocly.yaml)`, () => {
      const run = spawnSync(
        process.execPath,
        [cli, 'lint', '--config', 'redocly.yaml', '--format', 'json', `docs/api/${surface.name}.json`],
        {
          cwd: new URL('..', import.meta.url),
          encoding: 'utf8',
          // No usage reports or update checks leave the machine.
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      );
      const report = JSON.parse(run.stdout) as {
        totals: { errors: number; warnings: number; ignored: number };
        problems: unknown[];
      };
      assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 }, JSON.stringify(report.problems, null, 2));
      assert.equal(run.status, 0);
    });
  }
});

describe('OpenAPI documents a generator can use', () => {
  const documents = SURFACES.map((surface) => ({
    name: surface.name,
    doc: JSON.parse(readFileSync(new URL(`../docs/api/${surface.name}.json`, import.meta.url), 'utf8')) as {
      tags?: { name: string; description?: string }[];
      paths: Record<string, Record<string, Operation>>;
    },
  }));
  interface Operation {
    operationId: string;
    tags?: string[];
    parameters?: { name: string; in: string; style?: string; schema?: Record<string, unknown> }[];
    responses: Record<string, { description: string; headers?: Record<string, unknown> }>;
  }
  const operations = (doc: (typeof documents)[number]['doc']) =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
    );

  it('names every operation once, as a verb and a noun', () => {
    for (const { name, doc } of documents) {
      const ids = operations(doc).map(({ operation }) => operation.operationId);
      assert.equal(new Set(ids).size, ids.length, `${name}: an operationId repeats`);
      for (const id of ids) assert.match(id, /^[a-z]+[A-Z]?[A-Za-z]*(_\w+)?$/, `${name}: ${id}`);
      for (const id of ids) assert.doesNotMatch(id, /^(get|post|put|patch|delete)Api/, `${name}: ${id}`);
    }
  });

  it('describes every answer and declares the headers clients read', () => {
    for (const { name, doc } of documents) {
      for (const { path, method, operation } of operations(doc)) {
        const where = `${name}: ${method.toUpperCase()} ${path}`;
        for (const [status, response] of Object.entries(operation.responses)) {
          assert.notEqual(response.description, 'Default Response', `${where} ${status}`);
          if (status === '429' || status === '503') assert.ok(response.headers?.['Retry-After'], `${where} ${status}`);
          if (status === '401') assert.ok(response.headers?.['WWW-Authenticate'], `${where} ${status}`);
        }
        const paged = operation.parameters?.some((parameter) => parameter.in === 'query' && parameter.name === 'page');
        if (method === 'get' && paged) {
          assert.ok(operation.responses['200']?.headers?.['X-Pagination'], `${where}: X-Pagination`);
          assert.ok(operation.responses['200']?.headers?.Link, `${where}: Link`);
        }
      }
      const used = new Set(operations(doc).flatMap(({ operation }) => operation.tags ?? []));
      assert.deepEqual(new Set(doc.tags?.map((tag) => tag.name)), used, `${name}: top-level tags`);
      for (const tag of doc.tags ?? []) assert.ok(tag.description, `${name}: tag ${tag.name}`);
    }
  });

  it('declares query parameters a generated client can send, and ETag where If-Match or If-None-Match is read', () => {
    for (const { name, doc } of documents) {
      for (const { path, method, operation } of operations(doc)) {
        for (const parameter of operation.parameters ?? []) {
          // openapi-fetch (and most generators) serialize a flat map as a deepObject, nothing deeper.
          const values = parameter.schema?.additionalProperties as Record<string, unknown> | undefined;
          if (parameter.style === 'deepObject')
            assert.equal(values?.type, 'string', `${name}: ${method.toUpperCase()} ${path} ${parameter.name}`);
        }
      }
      const reads = (header: string, operation: Operation) =>
        operation.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === header) ?? false;
      const readsIfMatch = operations(doc).some(({ operation }) => reads('if-match', operation));
      const readsIfNoneMatch = operations(doc).some(({ operation }) => reads('if-none-match', operation));
      const sendsEtag = operations(doc).some(({ operation }) =>
        Object.values(operation.responses).some((response) => response.headers?.ETag),
      );
      assert.equal(
        sendsEtag,
        readsIfMatch || readsIfNoneMatch,
        `${name}: an If-Match or If-None-Match without a declared ETag to send back`,
      );
      // A conditional GET (src/http/etags.ts) declares the tag it answers and its 304.
      for (const { path, method, operation } of operations(doc).filter(({ operation }) =>
        reads('if-none-match', operation),
      )) {
        const where = `${name}: ${method.toUpperCase()} ${path}`;
        assert.ok(operation.responses['200']?.headers?.ETag, `${where}: ETag`);
        assert.ok(operation.responses['304'], `${where}: 304`);
      }
    }
  });
});
