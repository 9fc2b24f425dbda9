// The conditional GETs on their own (src/http/etags.ts): a tag made of what the answer is read under
// answers 304 before the handler runs; a tag made of the bytes answers 304 without sending them; the
// route's own preHandlers (who asks) run first; the credential is part of every tag.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyRequest } from 'fastify';
import { compressAnswers } from './compression.js';
import { conditionalGets, matchesIfNoneMatch } from './etags.js';

async function buildApp() {
  const app = Fastify();
  conditionalGets(app);
  compressAnswers(app);
  const calls = { handler: 0 };
  let version = 1;
  const authenticate = async (request: FastifyRequest) => {
    if (!request.headers.authorization) throw Object.assign(new Error('who?'), { statusCode: 401 });
  };
  app.get('/versioned', { preHandler: authenticate, config: { etag: () => [version] } }, async () => {
    calls.handler += 1;
    return { version };
  });
  app.get('/bytes', { config: { etag: 'body' } }, async () => {
    calls.handler += 1;
    return { version };
  });
  app.get('/versioned-or-bytes', { config: { etag: () => undefined } }, async () => ({ version }));
  app.get('/missing', { config: { etag: () => [version] } }, async (_request, reply) => reply.code(404).send({}));
  await app.ready();
  return { app, calls, move: () => (version += 1) };
}

describe('conditional GETs', () => {
  it('answers 304 before the handler when the versions match, and never to another credential', async () => {
    const { app, calls, move } = await buildApp();
    const as = (authorization: string, tag?: string) =>
      app.inject({
        method: 'GET',
        url: '/versioned',
        headers: { authorization, ...(tag ? { 'if-none-match': tag } : {}) },
      });
    const first = await as('Bearer one');
    assert.equal(first.statusCode, 200);
    const tag = String(first.headers.etag);
    assert.match(tag, /^W\/"v/);
    assert.equal(first.headers['cache-control'], 'private, no-cache');
    assert.equal(first.headers.vary, 'Authorization, Authentication-Token, Cookie');
    const again = await as('Bearer one', tag);
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, tag);
    assert.equal(calls.handler, 1, 'the handler did not run for the 304');
    assert.equal((await as('Bearer two', tag)).statusCode, 200, 'another credential: another tag');
    const unauthenticated = await app.inject({ method: 'GET', url: '/versioned', headers: { 'if-none-match': tag } });
    assert.equal(unauthenticated.statusCode, 401, "the route's own preHandlers run first");
    move();
    const moved = await as('Bearer one', tag);
    assert.equal(moved.statusCode, 200);
    assert.notEqual(moved.headers.etag, tag);
    assert.equal(
      (
        await app.inject({
          method: 'HEAD',
          url: '/versioned',
          headers: { authorization: 'Bearer one', 'if-none-match': String(moved.headers.etag) },
        })
      ).statusCode,
      304,
    );
    await app.close();
  });

  it('answers 304 by the bytes without sending them, where no version names the answer', async () => {
    const { app, calls, move } = await buildApp();
    for (const url of ['/bytes', '/versioned-or-bytes']) {
      const first = await app.inject({ method: 'GET', url });
      const tag = String(first.headers.etag);
      assert.match(tag, /^W\/"b/);
      assert.equal(first.headers['cache-control'], 'no-cache', 'no credential: a shared cache may keep it');
      const again = await app.inject({ method: 'GET', url, headers: { 'if-none-match': `"other", ${tag}` } });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal((await app.inject({ method: 'GET', url, headers: { 'if-none-match': '*' } })).statusCode, 304);
    }
    assert.equal(calls.handler, 3, 'the handler ran each time');
    const tag = String((await app.inject({ method: 'GET', url: '/bytes' })).headers.etag);
    move();
    assert.equal(
      (await app.inject({ method: 'GET', url: '/bytes', headers: { 'if-none-match': tag } })).statusCode,
      200,
    );
    const missing = await app.inject({ method: 'GET', url: '/missing' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers.etag, undefined, 'only a 200 is tagged');
    await app.close();
  });

  it('compares weakly', () => {
    assert.ok(matchesIfNoneMatch('"a"', 'W/"a"'));
    assert.ok(matchesIfNoneMatch('W/"b", W/"a"', 'W/"a"'));
    assert.ok(!matchesIfNoneMatch('"ab"', 'W/"a"'));
    assert.ok(!matchesIfNoneMatch(undefined, 'W/"a"'));
  });
});
