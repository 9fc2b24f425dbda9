// `blume prune` as an operator runs it while the server owns the embedded database: the command is
// handed to the server over the control socket, deletes old releases and their unused blobs, and
// the server's edge stops serving the deleted releases' preview hosts.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { siteArchive } from '../helpers/archives.js';
import { runBlume, startBlume, type RunningServer } from '../helpers/process.js';

async function api(
  server: RunningServer,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: BodyInit,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(server.url + url, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const jsonBody = (value: unknown): { headers: Record<string, string>; body: string } => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
});

describe('blume prune with the server running on the embedded database', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: RunningServer;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'blume-prune-'));
    env = { BLUME_DATA_DIR: dataDir, BLUME_PUBLIC_URL: 'http://blume.test' };
    server = await startBlume([], env);
  });
  after(async () => {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps the newest and the live releases and reports what it deleted', async () => {
    const signup = jsonBody({ username: 'owner', email: 'owner@example.test', password: 'correct horse battery' });
    const session = await fetch(`${server.url}/api/auth/signup`, { method: 'POST', ...signup });
    assert.equal(session.status, 201);
    const cookie = session.headers.getSetCookie()[0]!.split(';')[0]!;
    const site = jsonBody({ id: 'shop', kind: 'static' });
    assert.equal((await api(server, 'POST', '/api/sites', { ...site.headers, cookie }, site.body)).status, 201);
    const minted = jsonBody({ name: 'ci' });
    const token = String(
      (await api(server, 'POST', '/api/sites/shop/deploy-tokens', { ...minted.headers, cookie }, minted.body)).json
        .token,
    );
    const auth = { authorization: `Bearer ${token}` };

    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const form = new FormData();
      form.append(
        'archive',
        new Blob([new Uint8Array(await siteArchive({ 'index.html': `edition ${n}` }))]),
        'site.tar.gz',
      );
      const uploaded = await api(server, 'POST', '/api/deploy/shop', auth, form);
      assert.equal(uploaded.status, 201, JSON.stringify(uploaded.json));
      ids.push(String(uploaded.json.id));
    }
    const promote = jsonBody({ release: ids[0] });
    assert.equal(
      (await api(server, 'POST', '/api/deploy/shop/promote', { ...auth, ...promote.headers }, promote.body)).status,
      200,
    );

    const refused = await runBlume(['prune', '--site', 'shop'], env);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /--keep N/);

    const pruned = await runBlume(['prune', '--site', 'shop', '--keep', '1'], env);
    assert.equal(pruned.status, 0, pruned.stderr);
    assert.match(pruned.stdout, new RegExp(`shop: deleted 1 release\\(s\\) \\(${ids[1]}\\) and 1 blob\\(s\\)`));
    assert.match(pruned.stdout, /done by the running server/);

    const listed = await api(server, 'GET', '/api/deploy/shop/releases', auth);
    assert.deepEqual(
      (listed.json.releases as { id: string }[]).map((r) => r.id),
      [ids[2], ids[0]],
    );

    const again = await runBlume(['prune', '--all-sites', '--keep', '1'], env);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /shop: nothing to prune\./);
  });
});
