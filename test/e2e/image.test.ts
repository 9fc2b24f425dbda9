// The community image itself, built and run on this machine as docs/image.md says, word for word:
// scripts/build-image.sh builds it with buildah (vfs storage, no daemon, no network in build steps),
// then `buildah run --isolation chroot` on the host network starts it against a fresh PostgreSQL
// database, its health check passes, the first-admin command runs inside it and /up/databases is
// healthy. Every command of docs/image.md's shell blocks must be run here; the test fails otherwise.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { freePort } from '../helpers/ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GUIDE = path.join(ROOT, 'docs/image.md');
const BUILD_TIMEOUT_MS = 45 * 60_000;

function onPath(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
}

function skipReason(): string | false {
  if (!process.env.TEST_DATABASE_URL) return 'needs TEST_DATABASE_URL';
  if (process.getuid?.() !== 0) return 'needs root: buildah with vfs storage and debootstrap run as root';
  for (const tool of ['buildah', 'debootstrap', 'curl'])
    if (!onPath(tool)) return `${tool} is missing (.ci/run installs buildah and debootstrap)`;
  return false;
}

/** The commands of the guide's ```sh blocks, continuation lines joined, comments left out. */
function guideCommands(): string[] {
  const blocks = [...readFileSync(GUIDE, 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess, timeoutMs: number): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

describe('the community image, built with buildah and run as docs/image.md says', { skip: skipReason() }, () => {
  const documented = guideCommands();
  const ran = new Set<string>();
  let database: TestDatabase;
  let env: Record<string, string>;
  let server: ChildProcess | undefined;
  let serverOutput: Promise<Outcome> | undefined;

  /** The one documented command starting with `prefix`, marked as run. */
  function guide(prefix: string): string {
    const matches = documented.filter((command) => command.startsWith(prefix));
    assert.equal(matches.length, 1, `exactly one command of docs/image.md starts with ${prefix}`);
    ran.add(matches[0]!);
    return matches[0]!;
  }

  function sh(command: string, timeoutMs = 120_000): Promise<Outcome> {
    return collect(spawn('sh', ['-c', command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }), timeoutMs);
  }

  function mustRun(outcome: Outcome, what: string): string {
    assert.equal(outcome.status, 0, `${what} failed:\n${outcome.stdout}\n${outcome.stderr}`);
    return outcome.stdout;
  }

  before(async () => {
    database = await createTestDatabase('postgres', { migrate: false });
    const bind = `127.0.0.1:${await freePort()}`;
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      // The machine's own trust of the registry (a Node from the npm registry reads only its bundled
      // CAs and this, where Debian's Node reads the system store).
      ...Object.fromEntries(
        ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR']
          .filter((name) => process.env[name] !== undefined)
          .map((name) => [name, process.env[name]!]),
      ),
      DATABASE_URL: database.url!,
      SECRET_KEY: 'image-test-secret-key-image-test-secret-key',
      BIND: bind,
      ADMIN_PASSWORD: 'first admin of the image',
      ARCHIVE_DIR: await mkdtemp(path.join(tmpdir(), 'blume-image-')),
    };
    // A container left by an interrupted run would make `buildah from --name` fail.
    spawnSync('buildah', ['--storage-driver', 'vfs', 'rm', 'blume-try'], { stdio: 'ignore' });
  });

  after(async () => {
    if (server?.pid && server.exitCode === null && server.signalCode === null) process.kill(-server.pid, 'SIGKILL');
    await serverOutput;
    spawnSync('buildah', ['--storage-driver', 'vfs', 'rm', 'blume-try'], { stdio: 'ignore' });
    await rm(env.ARCHIVE_DIR!, { recursive: true, force: true });
    await database.drop();
  });

  it('builds with scripts/build-image.sh and runs as a non-root user', { timeout: BUILD_TIMEOUT_MS }, async (t) => {
    const started = Date.now();
    mustRun(await sh(guide('scripts/build-image.sh'), BUILD_TIMEOUT_MS), 'the build');
    t.diagnostic(`image built in ${Math.round((Date.now() - started) / 1000)} s`);
    const user = mustRun(await sh(guide('buildah --storage-driver vfs inspect')), 'inspect').trim();
    assert.equal(user, '1000:1000');
  });

  it(
    'starts on PostgreSQL, passes its health check, takes the first admin and reports healthy databases',
    { timeout: 10 * 60_000 },
    async () => {
      mustRun(await sh(guide('buildah --storage-driver vfs from')), 'from');
      mustRun(await sh(guide('buildah --storage-driver vfs config')), 'config');

      const uid = mustRun(
        await sh('buildah --storage-driver vfs run --isolation chroot --network host blume-try -- id -u'),
        'id -u',
      );
      assert.equal(uid.trim(), '1000', 'commands in the container run as the image user, not root');
      const check = mustRun(
        await sh(
          "buildah --storage-driver vfs inspect --type image --format '{{range .Docker.Config.Healthcheck.Test}}{{.}} {{end}}' localhost/blume:dev",
        ),
        'inspect',
      );
      assert.equal(
        check.trim(),
        'CMD node /app/docker/healthcheck.mjs',
        "the health check run below is the image's own",
      );
      // Installed for the docs-build sandbox; a chroot forbids the namespaces it makes, so here the
      // builds fall back to Node's permission model (decision 0030).
      const bwrap = mustRun(
        await sh('buildah --storage-driver vfs run --isolation chroot --network host blume-try -- bwrap --version'),
        'bwrap',
      );
      assert.match(bwrap, /^bubblewrap \d/);

      // Detached, so stopping it reaches buildah and the server together, as Ctrl-C in a terminal would.
      server = spawn(
        'sh',
        [
          '-c',
          guide(
            'buildah --storage-driver vfs run --isolation chroot --network host blume-try -- /app/docker/entrypoint.sh',
          ),
        ],
        {
          cwd: ROOT,
          env,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      serverOutput = collect(server, 10 * 60_000);

      // The image's own health check command, the way a container engine runs it, until it passes.
      const healthcheck = guide(
        'buildah --storage-driver vfs run --isolation chroot --network host blume-try -- node /app/docker/healthcheck.mjs',
      );
      const deadline = Date.now() + 180_000;
      for (;;) {
        const outcome = await sh(healthcheck);
        if (outcome.status === 0) break;
        if (server.exitCode !== null)
          assert.fail(`the server exited with ${server.exitCode}:\n${(await serverOutput).stderr}`);
        assert.ok(Date.now() < deadline, `the health check did not pass within 180 s: ${outcome.stderr}`);
        await sleep(50);
      }

      const admin = mustRun(
        await sh(
          guide('buildah --storage-driver vfs run --isolation chroot --network host blume-try -- blume create-admin'),
        ),
        'create-admin',
      );
      // BLUME_MODE=single in the image: the admin member of the community instance, not a portal account.
      assert.match(
        admin,
        /Created administrator "admin" <you@example\.com> of community instance "community"; log in at \/login\./,
      );

      const health = JSON.parse(mustRun(await sh(guide('curl ')), 'curl /up/databases')) as {
        status: string;
        checks: { database: { status: string } };
      };
      assert.equal(health.status, 'ok');
      assert.equal(health.checks.database.status, 'ok');

      // Ctrl-C: buildah kills the container's processes (it forwards no signal), so only the stop
      // itself is checked, not an exit code.
      process.kill(-server.pid!, 'SIGINT');
      const stopped = await serverOutput;
      assert.match(stopped.stderr, /install, migrations \(BLUME_AUTO_MIGRATE=True\) and seed run/);
      assert.ok((stopped.stdout + stopped.stderr).includes(`is running on http://${env.BIND}`), stopped.stdout);
    },
  );

  it(
    'exports an archive other container engines load, and removes the container',
    { timeout: 10 * 60_000 },
    async () => {
      mustRun(await sh(guide('buildah --storage-driver vfs push'), 10 * 60_000), 'push');
      const archive = path.join(env.ARCHIVE_DIR!, 'blume-image.tar');
      assert.ok(existsSync(archive));
      const listing = mustRun(await sh(`tar -tf ${archive}`), 'tar -tf');
      assert.match(listing, /^manifest\.json$/m);
      mustRun(await sh(guide('buildah --storage-driver vfs rm')), 'rm');
      assert.notEqual(
        (await sh('buildah --storage-driver vfs inspect --type container blume-try')).status,
        0,
        'the container is gone',
      );
    },
  );

  it('runs every command of docs/image.md', () => {
    assert.deepEqual(
      documented.filter((command) => !ran.has(command)),
      [],
    );
  });
});
