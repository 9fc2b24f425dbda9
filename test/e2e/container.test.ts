// The community image without a Docker engine: docker/entrypoint.sh runs as the container would run
// it (NODE_ENV=production, GUNICORN_BIND, a fresh PostgreSQL database, Redis), with BLUME_CLI
// pointing at the sources instead of the image's `blume`. Also checks the Dockerfile's essentials.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { BLUME_CLI_FROM_SOURCES, startServer, type CliResult, type RunningServer } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRYPOINT = path.join(ROOT, 'docker/entrypoint.sh');
const postgresUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

/** Runs the entrypoint with a blume command to completion, as `docker compose run --rm blume ...`. */
function runEntrypoint(args: string[], env: Record<string, string>): CliResult {
  const result = spawnSync('sh', [ENTRYPOINT, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', BLUME_LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function startContainer(env: Record<string, string>): Promise<RunningServer> {
  return startServer(['sh', ENTRYPOINT], env);
}

/** The health check the image runs, against the port the server actually took. */
function healthcheck(server: RunningServer): number | null {
  const port = new URL(server.url).port;
  return spawnSync(process.execPath, [path.join(ROOT, 'docker/healthcheck.mjs')], {
    env: { PATH: process.env.PATH ?? '', GUNICORN_BIND: `0.0.0.0:${port}` },
    encoding: 'utf8',
  }).status;
}

async function health(
  server: RunningServer,
  route: string,
): Promise<{ status: number; body: { status: string; checks?: Record<string, { status: string }> } }> {
  const response = await fetch(server.url + route);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; checks?: Record<string, { status: string }> },
  };
}

describe(
  'container entrypoint on PostgreSQL and Redis',
  { skip: !postgresUrl || !redisUrl ? 'needs TEST_DATABASE_URL and TEST_REDIS_URL' : false },
  () => {
    let database: TestDatabase;
    let dataDir: string;
    let env: Record<string, string>;

    before(async () => {
      database = await createTestDatabase('postgres', { migrate: false });
      dataDir = await mkdtemp(path.join(tmpdir(), 'blume-container-'));
      env = {
        BLUME_CLI: BLUME_CLI_FROM_SOURCES,
        NODE_ENV: 'production',
        BLUME_MODE: 'single',
        SECRET_KEY: 'container-secret-key-container-secret-key',
        GUNICORN_BIND: '127.0.0.1:0',
        BLUME_DATA_DIR: dataDir,
        DATABASE_URL: database.url!,
        BLUME_REDIS_ENABLED: 'True',
        BLUME_REDIS_URL: redisUrl!,
      };
    });
    after(async () => {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('refuses to serve a fresh database with BLUME_AUTO_MIGRATE=False and names `blume db upgrade`', async () => {
      const outcome = await startContainer({ ...env, BLUME_AUTO_MIGRATE: 'False' }).then(
        (server) => server.stop().then(() => 'started'),
        (error: Error) => error.message,
      );
      assert.match(outcome, /exited with 1/);
      assert.match(outcome, /migration\(s\) are pending and BLUME_AUTO_MIGRATE is False: run `blume db upgrade` first/);
      const [tables] = await queryRows<{ present: boolean }>(
        database.handle.db,
        sql`select to_regclass('public.users') is not null as present`,
      );
      assert.equal(tables!.present, false, 'nothing was migrated');
    });

    it('serves after `db upgrade` with BLUME_AUTO_MIGRATE=False, seeding at start', async () => {
      const upgraded = runEntrypoint(['db', 'upgrade'], env);
      assert.equal(upgraded.status, 0, upgraded.stderr);
      assert.match(upgraded.stdout, /Applied \d+ migration\(s\)/);
      const server = await startContainer({ ...env, BLUME_AUTO_MIGRATE: 'False' });
      try {
        assert.equal((await health(server, '/up/ready')).status, 200);
        const [site] = await queryRows<{ id: string; kind: string }>(
          database.handle.db,
          sql`select id, kind from sites`,
        );
        assert.deepEqual(site, { id: 'community', kind: 'community' });
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });

    it('starts, answers health, takes a first admin and restarts idempotently', async () => {
      const counts = async () =>
        (
          await queryRows<{ features: number; sites: number; users: number; admins: number; migrations: number }>(
            database.handle.db,
            sql`select (select count(*)::int from plan_features) as features, (select count(*)::int from sites) as sites,
                     (select count(*)::int from users) as users, (select count(*)::int from forum_members where role = 'admin') as admins,
                     (select count(*)::int from drizzle.__drizzle_migrations) as migrations`,
          )
        )[0]!;
      const first = await startContainer(env);
      let before: Awaited<ReturnType<typeof counts>>;
      try {
        assert.match(first.output(), /install, migrations \(BLUME_AUTO_MIGRATE=True\) and seed run/);
        assert.deepEqual(await health(first, '/up/'), { status: 200, body: { status: 'ok' } });
        const deep = await health(first, '/up/databases');
        assert.equal(deep.status, 200);
        assert.deepEqual(deep.body.checks, {
          database: { status: 'ok' },
          blob_store: { status: 'ok' },
          cache: { status: 'ok' },
        });
        assert.equal((await health(first, '/up/ready')).status, 200);
        assert.equal(healthcheck(first), 0);

        const admin = runEntrypoint(
          ['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'],
          env,
        );
        assert.equal(admin.status, 0, admin.stderr);
        assert.match(
          admin.stdout,
          /Created administrator "admin" <admin@example\.test> of community instance "community"/,
        );
        before = await counts();
        assert.equal(before.admins, 1, 'only the admin the operator created; no default one');
        assert.equal(before.users, 0, 'a community admin, never a portal account');
      } finally {
        assert.equal(await first.stop(), 0);
      }
      assert.equal(healthcheck(first), 1, 'the health check fails when nothing answers');

      for (let restart = 0; restart < 2; restart++) {
        const again = await startContainer(env);
        try {
          assert.equal((await health(again, '/up/databases')).status, 200);
          assert.equal((await health(again, '/up/ready')).status, 200);
        } finally {
          assert.equal(await again.stop(), 0);
        }
        assert.deepEqual(await counts(), before, 'a restart adds and changes nothing');
      }
      for (const command of [['install', '--single'], ['seed-features'], ['db', 'upgrade']]) {
        const result = runEntrypoint(command, env);
        assert.equal(result.status, 0, `${command.join(' ')}: ${result.stderr}`);
      }
      assert.deepEqual(await counts(), before);
    });

    it('refuses to start without DATABASE_URL', () => {
      const { DATABASE_URL: _unused, ...withoutDatabase } = env;
      const result = runEntrypoint([], withoutDatabase);
      assert.equal(result.status, 1);
      assert.match(result.stderr, /DATABASE_URL is required/);
    });
  },
);

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const runtime = stages.at(-1)!;
  const instructions = (stage: string, name: string): string[] =>
    stage
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((line) => line.trimStart().toUpperCase().startsWith(`${name} `))
      .map((line) =>
        line
          .trim()
          .slice(name.length + 1)
          .trim(),
      );

  it('builds in one stage and runs production dependencies only in the last', () => {
    assert.ok(stages.length >= 2, 'multi-stage');
    assert.ok(instructions(stages[0]!, 'RUN').some((run) => run.includes('npm ci') && !run.includes('--omit=dev')));
    assert.ok(
      instructions(stages[0]!, 'RUN').some(
        (run) => run.includes('npm run build') && run.includes('npm prune --omit=dev'),
      ),
    );
    assert.ok(
      !instructions(runtime, 'RUN').some((run) => run.includes('npm ')),
      'the runtime stage installs nothing from npm',
    );
    const copies = instructions(runtime, 'COPY').join('\n');
    assert.match(copies, /--from=build \/app\/node_modules/);
    assert.match(copies, /--from=build \/app\/dist/);
    assert.match(copies, /migrations/);
    assert.doesNotMatch(copies, /^src|\bsrc\b/m, 'no sources in the runtime image');
  });

  it('takes its base image as a build argument, the current Node LTS by default', () => {
    assert.match(dockerfile, /^ARG BASE_IMAGE=node:24-bookworm-slim$/m);
    for (const stage of stages) assert.match(stage, /^\$\{BASE_IMAGE\} AS /);
  });

  it('sets BLUME_MODE=single for every command of the image', () => {
    assert.match(instructions(runtime, 'ENV').join(' '), /BLUME_MODE=single/);
  });

  it('runs as a non-root user', () => {
    const users = instructions(runtime, 'USER');
    assert.ok(users.length > 0, 'USER is set');
    const user = users.at(-1)!.split(':')[0]!;
    assert.notEqual(user, 'root');
    assert.notEqual(user, '0');
  });

  it('exposes 8080, binds all interfaces there, and keeps data in a volume', () => {
    assert.deepEqual(instructions(runtime, 'EXPOSE'), ['8080']);
    assert.match(instructions(runtime, 'ENV').join(' '), /GUNICORN_BIND=0\.0\.0\.0:8080/);
    assert.match(instructions(runtime, 'ENV').join(' '), /BLUME_DATA_DIR=\/data/);
    assert.match(instructions(runtime, 'ENV').join(' '), /NODE_ENV=production/);
    assert.match(instructions(runtime, 'ENV').join(' '), /BLUME_MODE=single/);
    assert.match(instructions(runtime, 'VOLUME').join(' '), /\/data/);
  });

  it('checks health on /up/ with node and starts through the entrypoint', () => {
    const [check] = instructions(runtime, 'HEALTHCHECK');
    assert.ok(check, 'HEALTHCHECK is set');
    assert.match(check, /CMD \["node", "\/app\/docker\/healthcheck\.mjs"\]/);
    assert.doesNotMatch(check, /curl|wget/);
    assert.match(readFileSync(path.join(ROOT, 'docker/healthcheck.mjs'), 'utf8'), /\/up\//);
    assert.deepEqual(instructions(runtime, 'ENTRYPOINT'), ['["/app/docker/entrypoint.sh"]']);
    assert.deepEqual(instructions(runtime, 'CMD'), ['["serve", "--single"]']);
  });

  it('leaves local state and secrets out of the build context', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    for (const entry of ['node_modules', 'dist', 'data', '.git', '.env'])
      assert.ok(ignored.includes(entry), `${entry} is ignored`);
  });
});
