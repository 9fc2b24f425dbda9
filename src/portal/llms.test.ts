// llms.txt and llms-full.txt come from the registry of OpenAPI documents: the llmstxt.org shape, every
// API listed, and every link in them answers 200.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSite } from '../core/sites/service.js';
import { buildTestApp, PORTAL_HOST, type TestApp } from '../../test/helpers/app.js';

describe('llms.txt', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ database: 'pglite' });
  });
  after(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { host: PORTAL_HOST } });

  it('has the llmstxt.org shape and lists every API document, the MCP server and the agent rules', async () => {
    const response = await get('/llms.txt');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain/);
    const text = response.body;
    assert.match(text, /^# Blume\n\n> .+\n/);
    for (const section of ['## APIs', '## MCP server', '## Agent operating rules', '## Optional'])
      assert.ok(text.includes(`\n${section}\n`), section);
    for (const entry of t.app.apiDocuments) assert.ok(text.includes(entry.title), entry.title);
    assert.ok(t.app.apiDocuments.length >= 5);
    assert.match(text, /blume mcp/);
    assert.match(text, /roll back first/);
  });

  it('answers 200 at every link of llms.txt and llms-full.txt, and inlines every operation', async () => {
    const full = await get('/llms-full.txt');
    assert.equal(full.statusCode, 200);
    const links = new Set<string>();
    for (const body of [(await get('/llms.txt')).body, full.body])
      for (const match of body.matchAll(/\]\((http[^)\s]+)\)/g)) links.add(match[1]!);
    assert.ok(links.size >= 5);
    for (const link of links) {
      const url = new URL(link);
      assert.equal(url.host, PORTAL_HOST);
      const answer = await get(`${url.pathname}${url.search}`);
      assert.equal(answer.statusCode, 200, link);
      if (url.hash) assert.ok(full.body.includes(`<a id="${url.hash.slice(1)}"></a>`), link);
    }
    for (const entry of t.app.apiDocuments) {
      for (const [path, item] of Object.entries((entry.document().paths ?? {}) as Record<string, object>)) {
        for (const method of Object.keys(item))
          assert.ok(full.body.includes(`### ${method.toUpperCase()} ${path}\n`), `${method} ${path}`);
      }
    }
  });
});

describe('llms.txt of a community site', () => {
  let t: TestApp;
  const host = `club.${PORTAL_HOST}`;
  before(async () => {
    t = await buildTestApp({ database: 'pglite' });
    await createSite(t.app.deps.database.db, null, { id: 'club', kind: 'community', plan: 'pro' });
  });
  after(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { host } });

  it("lists the site's own APIs at its origin, every bullet a link that answers, and the answers' shapes", async () => {
    const text = (await get('/llms.txt')).body;
    assert.match(text, /^# Blume\n\n> .+\n/);
    const bullets = text.split('\n').filter((line) => line.startsWith('- '));
    assert.ok(bullets.length >= 5);
    for (const bullet of bullets) assert.match(bullet, /^- \[[^\]]+\]\(http[^)]+\)/, bullet);
    for (const entry of t.app.apiDocuments.filter((document) => document.servedOn === 'site'))
      assert.ok(text.includes(`(http://${host}${entry.path})`), entry.title);
    assert.ok(!text.includes('/api/deploy/openapi.json'), 'portal APIs stay on the portal');
    const full = (await get('/llms-full.txt')).body;
    for (const match of `${text}\n${full}`.matchAll(/\]\((http[^)\s]+)\)/g)) {
      const url = new URL(match[1]!);
      assert.equal(url.host, host);
      assert.equal((await get(`${url.pathname}${url.search}`)).statusCode, 200, match[1]);
      if (url.hash) assert.ok(full.includes(`<a id="${url.hash.slice(1)}"></a>`), match[1]);
    }
    assert.match(full, /### GET \/api\/forum\/v1\/topics\n[\s\S]*?Answer 200:\n```json\n\{/);
  });
});

describe('llms.txt of the portal, bullet by bullet', () => {
  it('makes every bullet a link', async () => {
    const t = await buildTestApp({ database: 'pglite' });
    try {
      const text = (await t.app.inject({ method: 'GET', url: '/llms.txt', headers: { host: PORTAL_HOST } })).body;
      const bullets = text.split('\n').filter((line) => line.startsWith('- '));
      for (const bullet of bullets) assert.match(bullet, /^- \[[^\]]+\]\(http[^)]+\)/, bullet);
    } finally {
      await t.close();
    }
  });
});
