// `blume backup` and `blume restore` as an operator runs them (decision 0088): a live platform on
// the embedded database with local blobs, filled through the APIs, is backed up while it serves
// (the running server writes the backup), restored into a fresh PostgreSQL database with its blobs
// in S3, and the restored server answers every probe with the same bytes; then back again, from
// PostgreSQL (the command reads it itself) into a fresh embedded install.
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import S3rver from 's3rver';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import { openRuntime } from '../../src/runtime.js';
import { askAll, fillInstance, type Answer, type Probe } from '../factories/instance.js';
import { PORTAL_HOST } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { runBlume, startBlume, type RunningServer } from '../helpers/process.js';

const postgresUrl = process.env.TEST_DATABASE_URL;

/** A request to the server with the probe's Host header, as a client of that host sends it. */
function ask(server: RunningServer, probe: Probe, method = 'GET', body?: unknown): Promise<Answer> {
  const { port } = new URL(server.url);
  const headers = {
    host: probe.host,
    ...probe.headers,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: probe.url, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Every file of a folder but the embedded database's own (which the running server writes), with its bytes' hash. */
async function folderState(dir: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, file);
    if (!entry.isFile() || relative.startsWith(`db${path.sep}`)) continue;
    state[relative] = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  }
  return state;
}

const askServer = (server: RunningServer) => (probe: Probe) => ask(server, probe);

function assertSameAnswers(
  after: Awaited<ReturnType<typeof askAll>>,
  before: Awaited<ReturnType<typeof askAll>>,
): void {
  assert.equal(after.length, before.length);
  for (const [index, answer] of after.entries()) {
    assert.ok(answer.status < 300, `${answer.probe}: ${answer.status} ${answer.body.toString()}`);
    assert.deepEqual(
      [answer.probe, answer.status, answer.contentType],
      [before[index]!.probe, before[index]!.status, before[index]!.contentType],
    );
    assert.equal(answer.body.toString('base64'), before[index]!.body.toString('base64'), answer.probe);
  }
}

describe(
  'blume backup and restore between embedded and PostgreSQL installs',
  { skip: postgresUrl ? false : 'needs TEST_DATABASE_URL' },
  () => {
    let scratch: string;
    let s3: S3rver;
    let s3Endpoint: string;
    let database: TestDatabase;

    before(async () => {
      scratch = await mkdtemp(path.join(tmpdir(), 'blume-backup-e2e-'));
      s3 = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: path.join(scratch, 's3'),
        configureBuckets: [{ name: 'blume', configs: [] }],
      });
      s3Endpoint = `http://127.0.0.1:${((await s3.run()) as { port: number }).port}`;
      database = await createTestDatabase('postgres', { migrate: false });
    });
    after(async () => {
      await database?.drop();
      await s3?.close();
      await rm(scratch, { recursive: true, force: true });
    });

    it('backs a live embedded install up and restores it into PostgreSQL with S3 blobs, and back', async () => {
      const embedded = { BLUME_DATA_DIR: path.join(scratch, 'embedded'), BLUME_PUBLIC_URL: `http://${PORTAL_HOST}` };
      // Filled through the APIs of the app on its own data directory, as a server would be.
      const runtime = await openRuntime(loadConfig(embedded), {
        migrations: 'always',
        seed: true,
        mode: { mode: 'platform' },
      });
      const app = await buildApp({ ...runtime, mode: 'platform', logger: false });
      const probes = await fillInstance(app);
      await app.close();
      await runtime.close();

      const original = await startBlume([], embedded);
      const backupDir = path.join(scratch, 'backup');
      let before;
      try {
        const topics = probes.find((p) => p.url.startsWith('/api/forum/v1/topics?'))!;
        const live = await ask(original, { ...topics, url: '/api/forum/v1/topics' }, 'POST', {
          forum_id: 'general',
          title: 'Written while live',
          body: 'Posted to the running server.',
        });
        assert.equal(live.status, 201, live.body.toString());

        const backup = await runBlume(['backup', backupDir], embedded);
        assert.equal(backup.status, 0, backup.stderr);
        assert.match(
          backup.stdout,
          /^Backed up \d+ tables \(\d+ rows\) and \d+ blob\(s\), \d+ blob bytes, to .*backup \(schema at \d{4}_\w+\)\.\n\(done by the running server, pid \d+\)\n$/,
        );
        // Restore into a fresh PostgreSQL database, but from the running server's folder: its blobs and
        // secret key live there. Refused before anything is written, anywhere.
        const held = { ...embedded, DATABASE_URL: database.url! };
        const folderBefore = await folderState(embedded.BLUME_DATA_DIR);
        const refused = await runBlume(['restore', backupDir], held);
        assert.equal(refused.status, 1);
        assert.match(
          refused.stderr,
          /^blume: A Blume server \(pid \d+\) is running on .*embedded, which this restore would write into: stop it first/m,
        );
        assert.deepEqual(await folderState(embedded.BLUME_DATA_DIR), folderBefore);
        const [tables] = await queryRows<{ count: number }>(
          database.handle.db,
          sql`select count(*)::int as count from pg_tables where schemaname = 'public'`,
        );
        assert.equal(tables!.count, 0, 'the refused restore created nothing in PostgreSQL');
        before = await askAll(probes, askServer(original));
        assert.match(
          before.find((a) => a.probe.endsWith('/topics?forum_id=general'))!.body.toString(),
          /Written while live/,
        );
      } finally {
        assert.equal(await original.stop(), 0);
      }
      const manifest = JSON.parse(await readFile(path.join(backupDir, 'manifest.json'), 'utf8')) as {
        source: unknown;
        installation: unknown;
      };
      assert.deepEqual(
        [manifest.source, manifest.installation],
        [{ database: 'pglite', blobs: 'local' }, { mode: 'platform' }],
      );

      const postgres = {
        BLUME_DATA_DIR: path.join(scratch, 'postgres'),
        BLUME_PUBLIC_URL: `http://${PORTAL_HOST}`,
        DATABASE_URL: database.url!,
        BLUME_BLOBS: 's3',
        BLUME_S3_BUCKET: 'blume',
        BLUME_S3_ENDPOINT: s3Endpoint,
        BLUME_S3_ACCESS_KEY_ID: 'S3RVER',
        BLUME_S3_SECRET_ACCESS_KEY: 'S3RVER',
      };
      const single = await runBlume(['restore', backupDir, '--single'], { ...postgres, BLUME_INSTANCE_ID: 'club' });
      assert.equal(single.status, 1);
      assert.match(
        single.stderr,
        /^blume: The backed-up installation is a platform, but this command runs as a single community instance/m,
      );
      const restored = await runBlume(['restore', backupDir], postgres);
      assert.equal(restored.status, 0, restored.stderr);
      assert.match(restored.stdout, /^Restored \d+ tables .* into PostgreSQL and the s3 blob store\.\n$/);
      assert.equal(
        await readFile(path.join(postgres.BLUME_DATA_DIR, 'secret_key'), 'utf8'),
        await readFile(path.join(embedded.BLUME_DATA_DIR, 'secret_key'), 'utf8'),
      );
      const again = await runBlume(['restore', backupDir], postgres);
      assert.equal(again.status, 1);
      assert.match(again.stderr, /^blume: The database already holds data \(in /m);

      const onPostgres = await startBlume([], postgres);
      const secondDir = path.join(scratch, 'second-backup');
      try {
        assertSameAnswers(await askAll(probes, askServer(onPostgres)), before);
        // PostgreSQL: the command reads the snapshot itself while the server runs.
        const second = await runBlume(['backup', secondDir], postgres);
        assert.equal(second.status, 0, second.stderr);
        assert.doesNotMatch(second.stdout, /running server/);
      } finally {
        assert.equal(await onPostgres.stop(), 0);
      }

      const embeddedAgain = {
        BLUME_DATA_DIR: path.join(scratch, 'embedded-again'),
        BLUME_PUBLIC_URL: `http://${PORTAL_HOST}`,
      };
      const back = await runBlume(['restore', secondDir], embeddedAgain);
      assert.equal(back.status, 0, back.stderr);
      assert.match(back.stdout, /into the embedded database in .* and the local blob store\./);
      const third = await startBlume([], embeddedAgain);
      try {
        assertSameAnswers(await askAll(probes, askServer(third)), before);
      } finally {
        assert.equal(await third.stop(), 0);
      }
    });
  },
);
