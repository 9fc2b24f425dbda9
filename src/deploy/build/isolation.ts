// What this machine gives the docs build sandbox, found once per process: the flag that turns on
// Node's permission model (`--permission` from Node 22.13, `--experimental-permission` before; each
// Node refuses the other's), bubblewrap when it can make namespaces here, and setpriv to tie a build
// to the server's life when bubblewrap does not. `blume serve` checks it before it starts, so a
// machine where builds cannot be isolated refuses to start instead of failing every build.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

type PermissionFlag = '--permission' | '--experimental-permission';

/** The permission-model flag the Node running Blume accepts, if any (builds run on that same Node). */
export function permissionFlag(
  flags: ReadonlySet<string> = process.allowedNodeEnvironmentFlags,
): PermissionFlag | undefined {
  if (flags.has('--permission')) return '--permission';
  if (flags.has('--experimental-permission')) return '--experimental-permission';
  return undefined;
}

/** Absolute path of an executable on PATH, if any. */
function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '/usr/bin:/bin')
    .split(path.delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => path.join(dir, name))
    .find((file) => {
      try {
        accessSync(file, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

let bubblewrapChecked: { path: string | undefined } | undefined;

/** Absolute path of bwrap when it is on PATH and can make namespaces here (containers often forbid it). Checked once. */
export function findBubblewrap(): string | undefined {
  if (bubblewrapChecked !== undefined) return bubblewrapChecked.path;
  const candidate = onPath('bwrap');
  const works =
    candidate !== undefined &&
    spawnSync(candidate, ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', 'true'], {
      stdio: 'ignore',
      timeout: 5_000,
    }).status === 0;
  bubblewrapChecked = { path: works ? candidate : undefined };
  return bubblewrapChecked.path;
}

let setprivChecked: { path: string | undefined } | undefined;

/**
 * Absolute path of util-linux's setpriv when it can set a parent-death signal here. A build started
 * through it is killed by the kernel when the server dies, even a build stuck in a loop.
 */
export function findSetpriv(): string | undefined {
  if (setprivChecked !== undefined) return setprivChecked.path;
  const candidate = onPath('setpriv');
  const works =
    candidate !== undefined &&
    spawnSync(candidate, ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 5_000 }).status === 0;
  setprivChecked = { path: works ? candidate : undefined };
  return setprivChecked.path;
}

export class BuildIsolationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuildIsolationError';
  }
}

interface BuildIsolation {
  flag: PermissionFlag;
  bubblewrap: boolean;
  /** One line for the start banner: what builds run under, and what is missing. */
  summary: string;
}

/**
 * Checks that this Node can run a build under the permission model (the flag is accepted and
 * works) and says what else isolates builds. Throws BuildIsolationError when builds cannot be isolated.
 */
export function checkBuildIsolation(options: { flags?: ReadonlySet<string>; execPath?: string } = {}): BuildIsolation {
  const flag = permissionFlag(options.flags);
  const node = options.execPath ?? process.execPath;
  if (flag === undefined) {
    throw new BuildIsolationError(
      `Node ${process.version} has no permission model (--permission or --experimental-permission), so docs builds cannot be isolated: run Blume on Node 22 or newer, or set BLUME_BUILD_CONCURRENCY=0 to leave builds to other nodes.`,
    );
  }
  const probe = spawnSync(node, [flag, '--disable-warning=ExperimentalWarning', '-e', ''], {
    encoding: 'utf8',
    env: {},
    timeout: 10_000,
  });
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit code ${probe.status}`).trim();
    throw new BuildIsolationError(
      `${node} refuses ${flag} (${why}), so docs builds cannot be isolated: run Blume on Node 22 or newer, or set BLUME_BUILD_CONCURRENCY=0 to leave builds to other nodes.`,
    );
  }
  if (findBubblewrap() !== undefined) {
    return {
      flag,
      bubblewrap: true,
      summary: 'Builds: bubblewrap (no network, read-only root, die with the server) + Node permission model.',
    };
  }
  const tied =
    findSetpriv() !== undefined
      ? 'killed with the server through setpriv'
      : 'NOT killed with the server (setpriv is missing too)';
  return {
    flag,
    bubblewrap: false,
    summary: `Builds: bubblewrap is not available, so builds run under Node's permission model only (file access narrowed, no child processes, network calls refused in-process, no network namespace; ${tied}). Install bubblewrap for namespaces.`,
  };
}
