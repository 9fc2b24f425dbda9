// Revision history of entries through the Content API: every save is a revision naming its author
// and what it changed; a restore saves an old revision as the newest (state kept unless asked);
// stale ETags, unknown revisions, forum types and read-only keys are refused as problems; the last
// MAX_REVISIONS are kept and they go with the entry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { cmsApi, mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { buildTestApp, json, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { queryRows } from '../db/client.js';
import { MAX_REVISIONS } from './revision-log.js';
import type { EntryOut, RevisionOut } from './schemas.js';

for (const database of testDatabases) {
  describe(`Content API revisions [${database}]`, () => {
    let t: TestApp;
    let write: string;
    let read: string;
    let admin: string;
    let entry: EntryOut;

    const api = (key: string, method: string, path: string, payload?: object, headers: Record<string, string> = {}) =>
      cmsApi(t.app, 'blog', key, { method: method as 'GET', path, headers, ...(payload ? { payload } : {}) });

    before(async () => {
      t = await buildTestApp({ database });
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'blog');
      admin = await mintApiKey(t.app, owner, 'blog', ['admin']);
      write = await mintApiKey(t.app, owner, 'blog', ['cms-write']);
      read = await mintApiKey(t.app, owner, 'blog', ['cms-read']);
      const type = await api(admin, 'POST', '/content-types', {
        slug: 'books',
        name: 'Books',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'pages', type: 'number' },
          { name: 'blurb', type: 'markdown' },
        ],
      });
      assert.equal(type.statusCode, 201, type.body);
      const created = await api(admin, 'POST', '/entries/books', {
        slug: 'dune',
        status: 'published',
        data: { title: 'Dune', pages: 412 },
      });
      assert.equal(created.statusCode, 201, created.body);
      entry = json<EntryOut>(created);
      const second = await api(write, 'PUT', `/entries/books/${entry.id}`, {
        data: { title: 'Dune', pages: 896, blurb: 'Spice.' },
      });
      assert.equal(second.statusCode, 200, second.body);
      const third = await api(write, 'PUT', `/entries/books/${entry.id}`, {
        slug: 'dune-1965',
        data: { title: 'Dune (1965)', pages: 896, blurb: 'Spice.' },
      });
      assert.equal(third.statusCode, 200, third.body);
    });
    after(() => t.close());

    it('lists every save newest first with its author and the fields it changed', async () => {
      const response = await api(write, 'GET', `/entries/books/${entry.id}/revisions`);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['cache-control'], 'private, no-store');
      const revisions = json<RevisionOut[]>(response);
      assert.deepEqual(
        revisions.map((r) => [r.version, r.author.kind, r.author.name, r.changed]),
        [
          [3, 'api_key', 'cms-write', ['title', 'slug']],
          [2, 'api_key', 'cms-write', ['pages', 'blurb']],
          [1, 'api_key', 'admin', ['title', 'pages', 'slug', 'status', 'published_at']],
        ],
      );
      assert.deepEqual(revisions[2]!.data, { title: 'Dune', pages: 412 });
      assert.equal(revisions[2]!.slug, 'dune');
      const paged = await api(write, 'GET', `/entries/books/dune-1965/revisions?page=2&page_size=1`);
      assert.deepEqual(
        json<RevisionOut[]>(paged).map((r) => [r.version, r.changed]),
        [[2, ['pages', 'blurb']]],
        'by slug too; a page knows the revision before its last',
      );
    });

    it('reads one revision, and answers 404 revision_not_found for one it does not keep', async () => {
      const one = json<RevisionOut>(await api(write, 'GET', `/entries/books/${entry.id}/revisions/2`));
      assert.deepEqual(
        [one.version, one.data, one.restored_from],
        [2, { title: 'Dune', pages: 896, blurb: 'Spice.' }, null],
      );
      const missing = await api(write, 'GET', `/entries/books/${entry.id}/revisions/99`);
      assert.equal(missing.statusCode, 404);
      assert.match(String(missing.headers['content-type']), /application\/problem\+json/);
      assert.equal(json<{ code: string }>(missing).code, 'revision_not_found');
      const forum = await api(write, 'GET', `/entries/topics/whatever/revisions`);
      assert.equal(json<{ code: string }>(forum).code, 'revision_not_found');
      const refused = await api(read, 'GET', `/entries/books/${entry.id}/revisions`);
      assert.equal(refused.statusCode, 403);
      assert.equal(json<{ code: string }>(refused).code, 'scope_missing');
    });

    it('restores a revision as a new one, keeping the entry published unless told otherwise', async () => {
      const current = await api(write, 'GET', `/entries/books/${entry.id}?status=any`);
      const stale = await api(
        write,
        'POST',
        `/entries/books/${entry.id}/revisions/1/restore`,
        {},
        { 'if-match': `"${entry.id}.1"` },
      );
      assert.equal(stale.statusCode, 412);
      assert.equal(json<{ code: string }>(stale).code, 'precondition_failed');
      const restored = await api(
        write,
        'POST',
        `/entries/books/${entry.id}/revisions/1/restore`,
        {},
        { 'if-match': String(current.headers.etag) },
      );
      assert.equal(restored.statusCode, 200, restored.body);
      assert.equal(restored.headers.etag, `"${entry.id}.4"`);
      const after = json<EntryOut>(restored);
      assert.deepEqual([after.slug, after.status, after.data], ['dune', 'published', { title: 'Dune', pages: 412 }]);
      assert.equal(after.published_at, entry.published_at, 'the publication time stays');
      const live = json<EntryOut>(await api(read, 'GET', '/entries/books/dune'));
      assert.equal((live.data as { pages?: number }).pages, 412, 'readers see the restored values');
      const newest = json<RevisionOut[]>(
        await api(write, 'GET', `/entries/books/${entry.id}/revisions?page_size=1`),
      )[0]!;
      assert.deepEqual(
        [newest.version, newest.restored_from, newest.author.name, newest.changed],
        [4, 1, 'cms-write', ['title', 'pages', 'blurb', 'slug']],
      );
      const asDraft = await api(write, 'POST', `/entries/books/${entry.id}/revisions/3/restore`, { status: 'draft' });
      assert.equal(asDraft.statusCode, 200, asDraft.body);
      assert.deepEqual([json<EntryOut>(asDraft).status, json<EntryOut>(asDraft).slug], ['draft', 'dune-1965']);
      assert.equal((await api(read, 'GET', '/entries/books/dune-1965')).statusCode, 404, 'no longer live');
    });

    it(`keeps the last ${MAX_REVISIONS} revisions of an entry, and drops them with it`, async () => {
      const created = json<EntryOut>(await api(write, 'POST', '/entries/books', { data: { title: 'Emma', pages: 1 } }));
      for (let pages = 2; pages <= MAX_REVISIONS + 2; pages++) {
        const saved = await api(write, 'PUT', `/entries/books/${created.id}`, { data: { title: 'Emma', pages } });
        assert.equal(saved.statusCode, 200, saved.body);
      }
      const kept = await queryRows<{ low: number; high: number; n: number }>(
        t.deps.database.db,
        sql`select min(version)::int as low, max(version)::int as high, count(*)::int as n from cms_entry_revisions where entry_id = ${created.id}`,
      );
      assert.deepEqual(kept[0], { low: 3, high: MAX_REVISIONS + 2, n: MAX_REVISIONS });
      const oldest = json<RevisionOut[]>(
        await api(write, 'GET', `/entries/books/${created.id}/revisions?page=${MAX_REVISIONS}&page_size=1`),
      );
      assert.deepEqual(
        oldest.map((r) => [r.version, r.changed]),
        [[3, ['title', 'pages', 'status']]],
        'the oldest kept shows all it holds',
      );
      assert.equal((await api(write, 'GET', `/entries/books/${created.id}/revisions/2`)).statusCode, 404);
      assert.equal((await api(write, 'DELETE', `/entries/books/${created.id}`)).statusCode, 204);
      const gone = await queryRows<{ n: number }>(
        t.deps.database.db,
        sql`select count(*)::int as n from cms_entry_revisions where entry_id = ${created.id}`,
      );
      assert.equal(gone[0]!.n, 0);
    });
  });
}
