// `blume serve`: open the runtime, build the app, listen, and shut down gracefully on a signal.
import { buildApp } from '../app.js';
import { hasPlatformAdmin } from '../core/accounts/service.js';
import { countMembersByRole } from '../forum/members.js';
import type { Config } from '../config/index.js';
import { BuildIsolationError, checkBuildIsolation } from '../deploy/build/isolation.js';
import { probeSandboxedBuild } from '../deploy/build/sandboxed-build.js';
import { sweepBlobIntents } from '../deploy/blobs.js';
import { sweepTempDir } from '../deploy/temp-dirs.js';
import { openRuntime, StartupError } from '../runtime.js';
import type { RunMode } from '../core/installation/service.js';
import { controlSocketPath, startControlServer } from './control.js';

export async function serve(config: Config, mode: RunMode): Promise<void> {
  const singleSite = mode.mode === 'single' ? mode.instanceId : undefined;
  const builds = await buildIsolationLine(config);
  const runtime = await openRuntime(config, { migrations: 'auto', seed: true, mode });
  const app = await buildApp({ ...runtime, mode: mode.mode, ...(singleSite ? { singleSite } : {}) });
  // Before anything listens: what a process that died left, its scratch folders (all of them when
  // the embedded database's lock makes this the only process here). builds.start() fails its builds.
  const swept = await sweepTempDir(app.deploy.tmpDir, { owner: !config.databaseUrl });
  if (swept.length > 0)
    app.log.warn(
      { removed: swept },
      `removed ${swept.length} scratch folder(s) a stopped Blume process left in ${app.deploy.tmpDir}`,
    );
  // The same for blobs of uploads it was storing (other nodes' are swept an hour on, by the build worker).
  const orphans = config.databaseUrl ? 0 : await sweepBlobIntents(runtime.database.db, runtime.blobs);
  if (orphans > 0)
    app.log.warn({ removed: orphans }, `removed ${orphans} blob(s) a stopped Blume process left uncommitted`);
  // An embedded database belongs to this process: CLI commands reach it through the control socket.
  const stopControl = config.databaseUrl
    ? async () => {}
    : await startControlServer(controlSocketPath(config.dataDir), {
        database: runtime.database,
        singleSite,
        blobs: runtime.blobs,
        edge: app.deploy.cache,
        epochs: app.services.epochs,
        secretKey: config.secretKey,
      });

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // A dependency that does not answer must not keep a stopping process alive.
    setTimeout(() => process.exit(1), 30_000).unref();
    await stopControl();
    await app.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  let address: string;
  try {
    address = await app.listen({ host: config.bind.host, port: config.bind.port });
  } catch (error) {
    await stopControl();
    await app.close();
    await runtime.close();
    throw error;
  }
  // Builds run on every serving node (BLUME_BUILD_CONCURRENCY=0 opts a node out); app.close stops it.
  await app.deploy.builds.start();
  const hasAdmin =
    singleSite !== undefined
      ? (await countMembersByRole(runtime.database.db, singleSite)).admin > 0
      : await hasPlatformAdmin(runtime.database.db);
  printBanner(config, mode, { driver: runtime.database.driver, address, builds, hasAdmin });
}

/**
 * What this node's builds run under. A node that builds but cannot isolate a build, or whose sandbox
 * cannot build a one-page site through the real entry, does not start: it says why once, here,
 * instead of failing every build.
 */
async function buildIsolationLine(config: Config): Promise<string> {
  if (config.builds.concurrency === 0) return 'Builds: none on this node (BLUME_BUILD_CONCURRENCY=0).';
  let summary: string;
  try {
    summary = checkBuildIsolation().summary;
  } catch (error) {
    if (error instanceof BuildIsolationError) throw new StartupError(error.message);
    throw error;
  }
  const failure = await probeSandboxedBuild();
  if (failure !== undefined)
    throw new StartupError(
      `a docs build of one page failed in the build sandbox, so every build would: ${failure}\nFix the sandbox, or set BLUME_BUILD_CONCURRENCY=0 to leave builds to other nodes.`,
    );
  return summary;
}

/**
 * How the operator runs the CLI here: `npx blume` from a clone (`npm start` runs through npm), plain
 * `blume` where it is on PATH (the container image, a global install).
 */
function cliName(): string {
  return process.env.npm_execpath === undefined ? 'blume' : 'npx blume';
}

interface BannerFacts {
  driver: string;
  address: string;
  builds: string;
  /** Whether an administrator exists: the first-administrator step is shown only until one does. */
  hasAdmin: boolean;
}

function printBanner(config: Config, mode: RunMode, facts: BannerFacts): void {
  const { driver, address, builds, hasAdmin } = facts;
  const bind = address.replace(/^http:\/\//, '');
  const storage = config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`;
  const blume = cliName();
  const lines =
    mode.mode === 'single'
      ? [
          `Blume community instance "${config.instanceId}" is running on ${address} (${storage}).`,
          'Health: /up/ (liveness), /up/databases, /up/ready.',
          ...(hasAdmin
            ? ['Administrators log in at /login on this instance.']
            : [
                `Create the first administrator:  ${blume} create-admin${config.mode === 'single' ? '' : ' --single'} -u admin -e you@example.com -p "<password>"`,
                'Then log in at /login on this instance.',
              ]),
          builds,
        ]
      : [
          `Blume is running (${driver}; ${storage}).`,
          `  Portal and API:  ${config.publicUrl.origin}   (listening on ${bind})`,
          `  Sites:           http://<site>.${config.sitesDomain}${config.publicUrl.port ? `:${config.publicUrl.port}` : ''}`,
          '',
          'Next steps:',
          ...(hasAdmin
            ? [
                `  1. Log in:  curl -c cookies.txt -H 'content-type: application/json' -d '{"login":"<admin>","password":"..."}' ${config.publicUrl.origin}/api/auth/login`,
                `     or in the console at ${config.publicUrl.origin}/`,
                `  2. API reference: ${config.publicUrl.origin}/api/openapi.json`,
              ]
            : [
                '  1. Create the first administrator (in another terminal):',
                `       ${blume} create-admin -u admin -e you@example.com -p "<a long password>"`,
                `  2. Log in:  curl -c cookies.txt -H 'content-type: application/json' -d '{"login":"admin","password":"..."}' ${config.publicUrl.origin}/api/auth/login`,
                `  3. API reference: ${config.publicUrl.origin}/api/openapi.json`,
              ]),
          '',
          builds,
        ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
