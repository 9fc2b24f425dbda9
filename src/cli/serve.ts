// `blume serve`: open the runtime, build the app, listen, and shut down gracefully on a signal.
import { buildApp } from '../app.js';
import type { Config } from '../config/index.js';
import { openRuntime } from '../runtime.js';
import { controlSocketPath, startControlServer } from './control.js';

export interface ServeOptions {
  single: boolean;
}

export async function serve(config: Config, options: ServeOptions): Promise<void> {
  const singleSite = options.single ? config.instanceId : undefined;
  const runtime = await openRuntime(config, { migrations: 'auto', seed: true, singleSite });
  const app = await buildApp({ ...runtime, mode: options.single ? 'single' : 'platform', singleSite });
  // An embedded database belongs to this process: CLI commands reach it through the control socket.
  const stopControl = config.databaseUrl
    ? async () => {}
    : await startControlServer(controlSocketPath(config.dataDir), { database: runtime.database, singleSite, blobs: runtime.blobs, edge: app.deploy.cache, plans: app.services.plans });

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
  printBanner(config, options, runtime.database.driver, address);
}

function printBanner(config: Config, options: ServeOptions, driver: string, address: string): void {
  const bind = address.replace(/^http:\/\//, '');
  const storage = config.databaseUrl ? 'PostgreSQL' : `embedded database in ${config.dataDir}`;
  const lines = options.single
    ? [
        `Blume community instance "${config.instanceId}" is running on ${address} (${storage}).`,
        'Health: /up/ (liveness), /up/databases, /up/ready.',
        'Create the first administrator:  npx blume create-admin --single -u admin -e you@example.com -p "<password>"',
        'Then log in at /login on this instance.',
      ]
    : [
        `Blume is running (${driver}; ${storage}).`,
        `  Portal and API:  ${config.publicUrl.origin}   (listening on ${bind})`,
        `  Sites:           http://<site>.${config.sitesDomain}${config.publicUrl.port ? `:${config.publicUrl.port}` : ''}`,
        '',
        'Next steps:',
        '  1. Create the first administrator (in another terminal):',
        '       npx blume create-admin -u admin -e you@example.com -p "<a long password>"',
        `  2. Log in:  curl -c cookies.txt -H 'content-type: application/json' -d '{"login":"admin","password":"..."}' ${config.publicUrl.origin}/api/auth/login`,
        `  3. API reference: ${config.publicUrl.origin}/api/openapi.json`,
      ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
