// A real git host on loopback for push-to-build tests: bare repositories under a temporary root,
// served over smart HTTP by `git http-backend` run as CGI, and helpers that commit and push with git.
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.test',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.test',
};

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return gitWith({}, cwd, ...args);
}

async function gitWith(env: Record<string, string>, cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: { ...GIT_ENV, HOME: cwd, ...env } });
  return stdout.trim();
}

export interface GitHost {
  baseUrl: string;
  /** Creates a bare repository `owner/name` and a working clone that pushes to it. */
  createRepository(name: string): Promise<WorkingCopy>;
  /** Requests the host answered, e.g. `GET /o/r.git/info/refs`. */
  requests: string[];
  close(): Promise<void>;
}

export interface WorkingCopy {
  dir: string;
  /** Writes the files, commits them on `branch` (at `date`, ISO 8601, if given) and pushes; answers the commit id. */
  commitAndPush(branch: string, files: Record<string, string>, message?: string, date?: string): Promise<string>;
}

/** Runs `git http-backend` for one request, as a CGI program. */
function serveCgi(root: string, request: http.IncomingMessage, response: http.ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const header = (name: string): string => {
    const value = request.headers[name];
    return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
  };
  const child = spawn('git', ['http-backend'], {
    env: {
      ...GIT_ENV,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: header('content-type'),
      ...(request.headers['content-length'] ? { CONTENT_LENGTH: header('content-length') } : {}),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      HTTP_GIT_PROTOCOL: header('git-protocol'),
      REMOTE_ADDR: '127.0.0.1',
      SERVER_PROTOCOL: 'HTTP/1.1',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    response.write(head.subarray(end + 4));
  });
  child.on('close', () => response.end());
}

export async function startGitHost(): Promise<GitHost> {
  const root = await mkdtemp(path.join(tmpdir(), 'blume-git-host-'));
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    serveCgi(path.join(root, 'repos'), request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let clones = 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    async createRepository(name) {
      const bare = path.join(root, 'repos', `${name}.git`);
      await mkdir(bare, { recursive: true });
      await git(bare, 'init', '--quiet', '--bare', '--initial-branch=main');
      // Partial fetches (`--filter=blob:none`), as GitHub and GitLab allow them.
      await git(bare, 'config', 'uploadpack.allowFilter', 'true');
      clones += 1;
      const dir = path.join(root, `work-${clones}`);
      await mkdir(dir);
      await git(dir, 'init', '--quiet', '--initial-branch=main');
      await git(dir, 'remote', 'add', 'origin', bare);
      return {
        dir,
        async commitAndPush(branch, files, message = 'update', date) {
          const exists = await git(dir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`).then(
            () => true,
            () => false,
          );
          // A new branch starts from the current commit; an existing one is switched to as it is.
          await git(dir, 'checkout', '--quiet', ...(exists ? [branch] : ['-b', branch]));
          for (const [rel, content] of Object.entries(files)) {
            await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
            await writeFile(path.join(dir, rel), content);
          }
          await git(dir, 'add', '--all');
          await gitWith(
            date === undefined ? {} : { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
            dir,
            'commit',
            '--quiet',
            '-m',
            message,
          );
          await git(dir, 'push', '--quiet', 'origin', `${branch}:refs/heads/${branch}`);
          return git(dir, 'rev-parse', 'HEAD');
        },
      };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
