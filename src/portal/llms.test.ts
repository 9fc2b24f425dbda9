// llms.txt and llms-full.txt come from the registry of OpenAPI documents: the llmstxt.org shape, every
// API listed, and every link in them answers 200.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
