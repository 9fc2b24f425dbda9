// Runs the real `blume` command (src/main.ts under tsx) as a child process, as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = 'src/main.ts';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one CLI command to completion. Asynchronous on purpose: a test may serve things the command
 * talks to (a proxy, a sink) from its own event loop.
 */
export function runBlume(args: string[], env: Record<string, string>): Promise<CliResult> {
  return runCommand([process.execPath, '--import', 'tsx', MAIN, ...args], env, ROOT);
}

/** Runs any command to completion with only PATH and `env` in its environment (killed after 2 min). */
/** Runs a command without a shell; `input`, when given, is its standard input. */
export function runCommand(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  input?: string,
): Promise<CliResult> {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd,
    env: { PATH: process.env.PATH ?? '', BLUME_LOG_LEVEL: 'warn', ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}

/**
 * Logs a member in at a running server's /login form, as a browser does; `page` is /account after it.
 * `get` is the fetch that reaches `origin` (one that resolves `*.localhost`, for a site's host).
 */
export async function loginOnForum(
  origin: string,
  login: string,
  password: string,
  get: (request: Request) => Promise<Response> = fetch,
): Promise<{ status: number; cookie: string; page: string }> {
  const call = (url: string, init?: RequestInit) => get(new Request(url, init));
  const form = await call(`${origin}/login`);
  const visitor = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const response = await call(`${origin}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: visitor, origin },
    body: new URLSearchParams({ _csrf: csrf, login, password }).toString(),
  });
  const cookie =
    response.headers
      .getSetCookie()
      .find((c) => c.startsWith('blume_member='))
      ?.split(';')[0] ?? '';
  const page = cookie ? await (await call(`${origin}/account`, { headers: { cookie } })).text() : '';
  return { status: response.status, cookie, page };
}

export interface RunningServer {
  process: ChildProcess;
  /** Origin the server listens on, e.g. http://127.0.0.1:41234 */
  url: string;
  output(): string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The command line that runs the CLI from the sources, for scripts that take it in BLUME_CLI. */
export const BLUME_CLI_FROM_SOURCES = `${process.execPath} --import tsx ${MAIN}`;

/**
 * Starts `blume serve` and resolves once it prints where it listens; rejects if it exits first.
 * `node` is the Node binary that runs it (this test's own by default).
 */
export function startBlume(
  args: string[],
  env: Record<string, string>,
  node: string = process.execPath,
): Promise<RunningServer> {
  return startServer([node, '--import', 'tsx', MAIN, 'serve', ...args], {
    BLUME_BIND: '127.0.0.1:0',
    ...env,
  });
}

/** Starts any command that ends up running `blume serve` (the container entrypoint), from ROOT. */
export function startServer(argv: string[], env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', BLUME_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /(?:listening on|is running on) (?:http:\/\/)?(127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        resolve({
          process: child,
          url: `http://${match[1]}`,
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
            try {
              return await exited;
            } finally {
              clearTimeout(timer);
            }
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`blume serve exited with ${code} before listening:\n${output}`)));
    setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`blume serve did not start listening within 120 s:\n${output}`));
    }, 120_000).unref();
  });
}

/** Live docs-build sandboxes of this data directory (a zombie's command line is empty). */
export function buildProcesses(dataDir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
        return cmdline.includes('build-entry') && cmdline.includes(dataDir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

export interface HostAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A GET to a running server with the Host header of a site (`docs.blume.test`,
 * `r-<release>--docs.blume.test`), which fetch() does not let a caller set.
 */
export function getOnHost(
  server: RunningServer,
  host: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<HostAnswer> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = http.get({ host: hostname, port, path: url, headers: { ...headers, host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** A JSON API call to a running server; answers the status, the headers and the parsed body. */
export async function callApi(
  server: RunningServer,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  // A connection per call: a kept-alive one can be closed by the server (its keep-alive timeout, or a
  // kill -9) just as the next call goes out on it, which fails that call for no fault of the server.
  const response = await fetch(server.url + url, {
    method,
    headers: { connection: 'close', ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}
