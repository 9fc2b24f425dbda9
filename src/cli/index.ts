// The `blume` command line. Every command reads the same configuration (environment variables).
// `serve`, `mcp`, `deploy` and `restore` load their modules when they run, so the other commands
// start without loading the web app.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, variables, type Env } from '../config/index.js';
import { DataDirBusyError, lockOwner } from '../db/lock.js';
import { openRuntime, runModeOf, StartupError } from '../runtime.js';
import { parseAssignments } from './settings-operations.js';
import { callControl, controlSocketPath } from './control.js';
import { MEMBER_ACTIONS, OperationError, runOperation, type OperationArgs, type OperationName } from './operations.js';
import { EdgeCache } from '../deploy/edge-cache.js';
import { CacheEpochs } from '../adapters/cache/epochs.js';

const USAGE = `Usage: blume <command> [options]

Commands:
  serve [--single]                 Start the platform (portal + sites), or in single mode one community instance
  db upgrade                       Apply pending database migrations
  install                          Prepare the data directory and database (idempotent; also runs at every start)
  seed-features                    Seed the plan feature matrix (idempotent; also runs at every start)
  plan set SITE PLAN               Move a site to a plan (free, pro, business), on every node at once
  plan-feature FEATURE [PLAN...]   Set the plans that include a feature, on every node at once
  create-admin -u NAME -e EMAIL -p PASSWORD
                                   Create an administrator (there is never a default one); in single mode,
                                   the admin of the community instance
  settings get | set NAME=VALUE... | apply
                                   Read, change or apply instance settings (--site ID on a platform)
  member (role NAME ROLE | ban NAME | unban NAME | delete NAME) [--single | --site ID]
                                   Change a member of a community; its last admin always stays
  deploy <dir|archive> --site ID [--build] [--promote] [--url PORTAL]
                                   Upload a site as a new release (token from BLUME_DEPLOY_TOKEN); with
                                   --build the folder is Markdown, built into a docs site by the server
  prune (--site ID | --all-sites) --keep N
                                   Delete old releases and the blobs only they used
  backup DIR                       Write a backup of the database and blobs into a new folder, while the server runs
  restore DIR                      Restore a backup into a fresh install (embedded or PostgreSQL, local or S3 blobs)
  mcp                              Run the MCP tool server on stdin/stdout for an agent (credentials from
                                   BLUME_DEPLOY_TOKEN, BLUME_TENANT_URL + BLUME_FORUM_TOKEN, BLUME_API_KEY)

Single mode (BLUME_MODE=single, which the image sets, or --single on any command) makes every command act
on the community instance BLUME_INSTANCE_ID; the mode is recorded at install and a command or server of
the other mode is refused.

Run \`blume <command> --help\` for one command, \`blume help env\` for every setting.`;

const COMMAND_HELP: Record<string, string> = {
  serve:
    'Usage: blume serve [--single]\n\n' +
    'Starts the HTTP server on BLUME_BIND (or GUNICORN_BIND). Migrations run first unless\n' +
    'BLUME_AUTO_MIGRATE=False; install and seed steps run at every start. In single mode (BLUME_MODE=single\n' +
    'or --single), one community instance (BLUME_INSTANCE_ID) answers on every host and there is no portal.',
  'db upgrade': 'Usage: blume db upgrade\n\nApplies pending migrations. Safe to run twice and while other nodes start.',
  install:
    'Usage: blume install [--single]\n\n' +
    'Creates the data directory and secret key, applies migrations and seeds. Idempotent.',
  'seed-features':
    'Usage: blume seed-features\n\nInserts missing plan features; keeps rows an operator has changed. Idempotent.',
  plan:
    'Usage: blume plan set <site> <plan>\n\n' +
    'Moves site <site> to the plan free, pro or business (what each includes: docs/plans.md); every node\n' +
    "uses it from its next request on. A downgrade turns features off and deletes nothing. The console's\n" +
    '/admin page and the purchase API (PATCH /api/purchase/v1/workspaces/{id}) do the same.',
  'plan-feature':
    'Usage: blume plan-feature <feature> [<plan>...]\n\n' +
    'Sets the plans (free, pro, business) that include a feature (deploy, forum_api, cms_api,\n' +
    'helpdesk_api, shared_inbox, ai); no plan turns it off. Every node applies it from its next request;\n' +
    'an edit of plan_features made with SQL shows within a minute.',
  'create-admin':
    'Usage: blume create-admin [--single] -u <username> -e <email> -p <password>\n\n' +
    'Creates an administrator. Fails when the username or e-mail is taken.\n' +
    'In single mode (BLUME_MODE=single or --single), an admin member of the community instance\n' +
    'BLUME_INSTANCE_ID, who logs in at /login (the instance is created if needed); on a platform, a\n' +
    'platform administrator account of the portal.',
  settings:
    'Usage: blume settings get [--site <id>]\n       blume settings set [--site <id>] NAME=VALUE...\n' +
    '       blume settings apply [--site <id>]\n\n' +
    'The instance settings of the community instance (single mode) or of site <id> (platform), as\n' +
    'GET|PUT /api/instances/{id}/env and POST /api/instances/{id}/restart: `set` saves (an empty value\n' +
    'unsets a name; secrets read back masked), `apply` applies the saved settings on every node.',
  member:
    'Usage: blume member role <username> <admin|moderator|member> [--single | --site <id>]\n' +
    '       blume member (ban | unban | delete) <username> [--single | --site <id>]\n\n' +
    'Changes a member of the community instance (single mode: BLUME_MODE=single or --single) or of\n' +
    "the community site <id>. A deleted member's posts stay, without an author. The last admin of a community\n" +
    'cannot be demoted, banned or deleted: make another member admin first.',
  prune:
    'Usage: blume prune (--site <id> | --all-sites) --keep <n>\n\n' +
    'Deletes old releases of one site or of every site, keeping the newest n, the live and stage\n' +
    "releases and the last n steps of the live release's rollback history; then deletes the blobs no\n" +
    'remaining release uses. Preview hosts of deleted releases answer 404 on every node.\n' +
    'See docs/decisions/0006-deploy-releases-and-edge.md.',
  backup:
    'Usage: blume backup [--single] <dir>\n\n' +
    'Writes every table (read in one consistent snapshot) and every blob the rows refer to into the new\n' +
    'or empty folder <dir>, with a manifest of checksums; the server keeps answering. On the embedded\n' +
    'database the running server writes it (the folder is on its machine). The folder holds the secret\n' +
    'key and every password hash: keep it as private as the data directory. See docs/backup.md.',
  restore:
    'Usage: blume restore [--single] <dir>\n\n' +
    'Restores a backup into the configured database and blob store (embedded or PostgreSQL, local or S3),\n' +
    "which must hold no data yet; no server may run on them meanwhile. The backup's secret key becomes this\n" +
    "install's (with SECRET_KEY set, it must be the same key). See docs/backup.md.",
};

interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

function envHelp(): string {
  return [
    'Settings (environment variables):',
    ...variables.map((v) => `  ${v.name.padEnd(30)} ${v.doc} Default: ${v.default || '(none)'}`),
  ].join('\n');
}

/**
 * Runs an operation: inside the running server when it owns the embedded database, else here. The
 * mode the command runs as must agree with the installation's (and the running server's).
 */
async function runCommandOperation(
  env: Env,
  io: CliIo,
  name: OperationName,
  args: OperationArgs,
  single: boolean,
): Promise<number> {
  const config = loadConfig(env);
  const mode = runModeOf(config, single);
  const singleSite = mode.mode === 'single' ? mode.instanceId : undefined;
  if (!config.databaseUrl) {
    const owner = lockOwner(config.dataDir);
    if (owner !== undefined && owner !== process.pid) {
      const answerTimeout = name === 'backup' ? 0 : undefined;
      io.out(
        await callControl(
          controlSocketPath(config.dataDir),
          { op: name, args, mode },
          () => lockOwner(config.dataDir) === owner,
          answerTimeout,
        ),
      );
      io.out(`(done by the running server, pid ${owner})`);
      return 0;
    }
  }
  const migrations = name === 'db-upgrade' || name === 'install' ? 'skip' : 'auto';
  const runtime = await openRuntime(config, { migrations, seed: false, mode });
  // Not started: this process serves nothing, it only broadcasts changes to the nodes that do.
  const edge = new EdgeCache(runtime.database.db, runtime.cache.pubsub);
  const epochs = new CacheEpochs(runtime.database.db, runtime.cache.pubsub, { answers: false });
  try {
    // Before `db upgrade` or `install` there may be no epochs to read; those commands move none.
    if (migrations === 'auto') await epochs.start();
    io.out(
      await runOperation(
        {
          database: runtime.database,
          singleSite,
          blobs: runtime.blobs,
          edge,
          epochs,
          secretKey: config.secretKey,
        },
        name,
        args,
      ),
    );
  } finally {
    await epochs.stop();
    await runtime.close();
  }
  return 0;
}

const COMMANDS = [
  'serve',
  'db',
  'install',
  'seed-features',
  'plan',
  'plan-feature',
  'create-admin',
  'settings',
  'member',
  'prune',
  'backup',
  'restore',
  'deploy',
  'mcp',
  'help',
] as const;

/** The command a typo most likely meant: at most two edits away (one for short words), else none. */
function closestCommand(typed: string): string | undefined {
  let best: { command: string; distance: number } | undefined;
  for (const command of COMMANDS) {
    const distance = editDistance(typed.toLowerCase(), command);
    if (best === undefined || distance < best.distance) best = { command, distance };
  }
  const allowed = typed.length <= 4 ? 1 : 2;
  return best !== undefined && best.distance <= allowed ? best.command : undefined;
}

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

const SETTINGS_ACTIONS = { get: 'settings-get', set: 'settings-set', apply: 'settings-apply' } as const;

export async function runCli(argv: string[], env: Env = process.env, io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(rest[0] === 'env' ? envHelp() : USAGE);
        return 0;
      case 'serve': {
        if (wantsHelp) return (io.out(COMMAND_HELP.serve!), 0);
        const { values } = parseArgs({
          args: rest,
          options: { single: { type: 'boolean', default: false } },
          strict: true,
        });
        const config = loadConfig(env);
        const { serve } = await import('./serve.js');
        await serve(config, runModeOf(config, values.single ?? false));
        return 0;
      }
      case 'db': {
        if (rest[0] !== 'upgrade') {
          io.err('Usage: blume db upgrade');
          return 2;
        }
        if (wantsHelp) return (io.out(COMMAND_HELP['db upgrade']!), 0);
        const { values } = parseArgs({
          args: rest.slice(1),
          options: { single: { type: 'boolean', default: false } },
          strict: true,
        });
        return await runCommandOperation(env, io, 'db-upgrade', {}, values.single ?? false);
      }
      case 'install':
      case 'seed-features': {
        if (wantsHelp) return (io.out(COMMAND_HELP[command]!), 0);
        const { values } = parseArgs({
          args: rest,
          options: { single: { type: 'boolean', default: false } },
          strict: true,
        });
        return await runCommandOperation(env, io, command, {}, values.single ?? false);
      }
      case 'plan-feature': {
        if (wantsHelp) return (io.out(COMMAND_HELP['plan-feature']!), 0);
        if (!rest[0]) return (io.err(COMMAND_HELP['plan-feature']!), 2);
        return await runCommandOperation(
          env,
          io,
          'plan-feature',
          { feature: rest[0], plans: rest.slice(1).join(',') },
          false,
        );
      }
      case 'plan': {
        if (wantsHelp) return (io.out(COMMAND_HELP.plan!), 0);
        const [action, site, plan, ...extra] = rest;
        if (action !== 'set' || !site || !plan || extra.length > 0) return (io.err(COMMAND_HELP.plan!), 2);
        return await runCommandOperation(env, io, 'plan-set', { site, plan }, false);
      }
      case 'create-admin': {
        if (wantsHelp) return (io.out(COMMAND_HELP['create-admin']!), 0);
        const { values } = parseArgs({
          args: rest,
          options: {
            username: { type: 'string', short: 'u' },
            email: { type: 'string', short: 'e' },
            password: { type: 'string', short: 'p' },
            single: { type: 'boolean', default: false },
          },
          strict: true,
        });
        const { single, ...args } = values;
        return await runCommandOperation(env, io, 'create-admin', args, single ?? false);
      }
      case 'settings': {
        const action = rest[0] as keyof typeof SETTINGS_ACTIONS | undefined;
        if (wantsHelp) return (io.out(COMMAND_HELP.settings!), 0);
        if (!action || !Object.hasOwn(SETTINGS_ACTIONS, action)) return (io.err(COMMAND_HELP.settings!), 2);
        const { values, positionals } = parseArgs({
          args: rest.slice(1),
          options: { site: { type: 'string' }, single: { type: 'boolean', default: false } },
          allowPositionals: action === 'set',
          strict: true,
        });
        const args: OperationArgs = { site: values.site };
        if (action === 'set') args.assignments = JSON.stringify(parseAssignments(positionals));
        return await runCommandOperation(env, io, SETTINGS_ACTIONS[action], args, values.single ?? false);
      }
      case 'member': {
        if (wantsHelp) return (io.out(COMMAND_HELP.member!), 0);
        const { values, positionals } = parseArgs({
          args: rest,
          options: { single: { type: 'boolean', default: false }, site: { type: 'string' } },
          allowPositionals: true,
          strict: true,
        });
        const [action = '', username, role, ...extra] = positionals;
        const actionOk = (MEMBER_ACTIONS as readonly string[]).includes(action);
        if (!actionOk || !username || (action === 'role') !== (role !== undefined) || extra.length > 0)
          return (io.err(COMMAND_HELP.member!), 2);
        return await runCommandOperation(
          env,
          io,
          'member',
          { action, username, role, site: values.site },
          values.single ?? false,
        );
      }
      case 'prune': {
        if (wantsHelp) return (io.out(COMMAND_HELP.prune!), 0);
        const { values } = parseArgs({
          args: rest,
          options: {
            site: { type: 'string' },
            'all-sites': { type: 'boolean', default: false },
            keep: { type: 'string' },
          },
          strict: true,
        });
        return await runCommandOperation(
          env,
          io,
          'prune',
          { site: values.site, keep: values.keep, 'all-sites': values['all-sites'] ? 'true' : undefined },
          false,
        );
      }
      case 'backup':
      case 'restore': {
        if (wantsHelp) return (io.out(COMMAND_HELP[command]!), 0);
        const { values, positionals } = parseArgs({
          args: rest,
          options: { single: { type: 'boolean', default: false } },
          allowPositionals: true,
          strict: true,
        });
        if (positionals.length !== 1) return (io.err(COMMAND_HELP[command]!), 2);
        const dir = path.resolve(positionals[0]!);
        if (command === 'backup') return await runCommandOperation(env, io, 'backup', { dir }, values.single ?? false);
        // No secret key is generated into the data directory: a refused restore leaves it as it was.
        const config = loadConfig(env, { writeSecret: false });
        const { restoreCommand } = await import('./backup-operations.js');
        io.out(await restoreCommand(config, env, runModeOf(config, values.single ?? false), dir));
        return 0;
      }
      case 'deploy':
        return await (await import('../deploy/cli.js')).runDeployCommand(rest, env);
      case 'mcp': {
        const { MCP_HELP, runMcpCommand } = await import('../mcp/stdio.js');
        if (wantsHelp) return (io.out(MCP_HELP), 0);
        if (rest.length > 0) return (io.err(MCP_HELP), 2);
        return await runMcpCommand(env);
      }
      default: {
        const guess = closestCommand(command);
        io.err(
          guess === undefined
            ? `blume: unknown command "${command}"\n\n${USAGE}`
            : `blume: unknown command "${command}"; did you mean ${guess}?\n\nRun \`blume --help\` for every command.`,
        );
        return 2;
      }
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StartupError || error instanceof OperationError) {
      io.err(`blume: ${error.message}`);
      return 1;
    }
    if (error instanceof DataDirBusyError) {
      io.err(
        `blume: another Blume process (pid ${error.pid}) is using this data directory; \
stop it first or use that server.`,
      );
      return 1;
    }
    if (
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ||
      (error as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
    ) {
      io.err(`blume: ${(error as Error).message}`);
      return 2;
    }
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      io.err(`blume: the address is in use: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}
