// Fetching one pushed commit with the `git` command: a shallow fetch of exactly that commit into a
// fresh bare repository, then `git archive` of the connected folder into a tar that goes through the
// same checks as an uploaded archive (no symlinks, servable paths, limits). Git never prompts for
// credentials, reads no user or system configuration, and speaks only HTTP(S).
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const REPOSITORY_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$';
/** A branch name git accepts: no leading `-`, no `..`, `//`, trailing `/` or `.lock`. */
export const BRANCH_PATTERN = '^(?!-)(?!.*\\.\\.)(?!.*//)(?!.*/$)(?!.*\\.lock$)[A-Za-z0-9._/-]+$';
/** A full commit id, SHA-1 or SHA-256. */
export const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export class GitFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitFetchError';
  }
}

export interface FetchCommitOptions {
  baseUrl: string;
  repository: string;
  commit: string;
  /** Folder inside the repository to archive; '' for the root. */
  path: string;
  workDir: string;
  timeoutMs: number;
  signal?: AbortSignal;
  log: (line: string) => void;
}

function repositoryUrl(baseUrl: string, repository: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${repository}.git`;
}

function runGit(args: string[], options: FetchCommitOptions, gitDir: string): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: options.workDir,
    GIT_DIR: gitDir,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    LC_ALL: 'C',
  };
  const hardening = [
    '-c',
    'credential.helper=',
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.http.allow=always',
    '-c',
    'protocol.https.allow=always',
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.quotePath=false',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...hardening, ...args], {
      env,
      cwd: options.workDir,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: options.timeoutMs,
      killSignal: 'SIGKILL',
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const lines: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => {
      lines.push(line);
      options.log(`git: ${line}`);
    });
    child.once('error', (error) => reject(new GitFetchError(`git could not run: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else if (signal === 'SIGKILL')
        reject(new GitFetchError(`git ${args[0]} was stopped after the time limit of ${options.timeoutMs} ms`));
      else
        reject(
          new GitFetchError(
            `git ${args[0]} failed (exit code ${code ?? 'none'})${lines.length > 0 ? `: ${lines.at(-1)}` : ''}`,
          ),
        );
    });
  });
}

/** Fetches the commit and answers the path of a plain tar of the connected folder at that commit. */
export async function fetchCommitTar(options: FetchCommitOptions): Promise<string> {
  if (!new RegExp(REPOSITORY_PATTERN).test(options.repository))
    throw new GitFetchError(`"${options.repository}" is not an owner/name repository`);
  if (!COMMIT_ID.test(options.commit)) throw new GitFetchError(`"${options.commit}" is not a full commit id`);
  const gitDir = path.join(options.workDir, 'repo.git');
  await mkdir(gitDir, { recursive: true });
  const url = repositoryUrl(options.baseUrl, options.repository);
  options.log(`fetching ${options.commit} from ${url}`);
  await runGit(['init', '--quiet', '--bare', gitDir], options, gitDir);
  // Fetching a commit by id (not a branch) builds exactly what was pushed, even if the branch moved on.
  await runGit(
    ['fetch', '--quiet', '--depth=1', '--no-tags', '--no-recurse-submodules', url, options.commit],
    options,
    gitDir,
  );
  const tar = path.join(options.workDir, 'source.tar');
  const tree = options.path === '' ? options.commit : `${options.commit}:${options.path}`;
  await runGit(['archive', '--format=tar', `--output=${tar}`, tree], options, gitDir);
  return tar;
}

/** How far back the history of a connected folder is read for its pages' dates. */
const HISTORY_DEPTH = 5000;

/**
 * When each file of the connected folder last changed: the committer time of the newest commit that
 * touched it, keyed by its path inside the folder. Reads commits and trees only (a `blob:none`
 * partial fetch, so it costs little even on a long history); a host without partial fetch sends the
 * blobs too and the answer is the same. Files whose last change lies beyond the fetched depth get no
 * date rather than a wrong one.
 */
export async function fetchFileDates(options: FetchCommitOptions): Promise<Map<string, string>> {
  const gitDir = path.join(options.workDir, 'history.git');
  await mkdir(gitDir, { recursive: true });
  const url = repositoryUrl(options.baseUrl, options.repository);
  await runGit(['init', '--quiet', '--bare', gitDir], options, gitDir);
  await runGit(
    [
      'fetch',
      '--quiet',
      '--filter=blob:none',
      `--depth=${HISTORY_DEPTH}`,
      '--no-tags',
      '--no-recurse-submodules',
      url,
      options.commit,
    ],
    options,
    gitDir,
  );
  const logFile = path.join(options.workDir, 'history.log');
  await runGit(
    [
      'log',
      `--output=${logFile}`,
      '--format=%x00%H %cI',
      '--name-only',
      '--no-renames',
      options.commit,
      '--',
      options.path === '' ? '.' : options.path,
    ],
    options,
    gitDir,
  );
  const boundary = new Set(
    (
      await readFile(path.join(gitDir, 'shallow'), 'utf8').catch((error: NodeJS.ErrnoException) =>
        error.code === 'ENOENT' ? '' : Promise.reject(error),
      )
    )
      .split('\n')
      .filter(Boolean),
  );
  const prefix = options.path === '' ? '' : `${options.path}/`;
  const dates = new Map<string, string>();
  for (const record of (await readFile(logFile, 'utf8')).split('\0').slice(1)) {
    const [head = '', ...names] = record.split('\n');
    const [commit = '', date = ''] = head.split(' ');
    // A shallow history's oldest commit shows every file as added there: its date would be wrong.
    if (boundary.has(commit)) continue;
    for (const name of names) {
      if (name === '' || !name.startsWith(prefix)) continue;
      const rel = name.slice(prefix.length);
      if (!dates.has(rel)) dates.set(rel, date);
    }
  }
  return dates;
}
