// Docs pages run word for word: the commands of a page's `sh` blocks as a reader copies them
// (continued lines joined, with the `## ` section each is in), run against a server set up as the
// README's quick start sets it up, with the page's placeholders put in as the reader is told to.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  BLUME_CLI_FROM_SOURCES,
  runBlume,
  runCommand,
  startBlume,
  type CliResult,
  type RunningServer,
} from './process.js';
import { freePort } from './ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface DocCommand {
  section: string;
  command: string;
}

export async function docCommands(page: string): Promise<DocCommand[]> {
  const markdown = await readFile(path.join(ROOT, page), 'utf8');
  const commands: DocCommand[] = [];
  for (const section of markdown.split(/^## /m).slice(1)) {
    const title = section.slice(0, section.indexOf('\n'));
    for (const block of section.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
      for (const line of block[1]!.replace(/\\\n\s*/g, '').split('\n'))
        if (line.trim() !== '') commands.push({ section: title, command: line.trim() });
    }
  }
  return commands;
}

/**
 * The files a page shows for the reader to save, by name: `ts` blocks by the file name on their first
 * line (`// example.ts`), and blocks whose info string names the file after the language
 * (```text message.eml).
 */
export async function docFiles(page: string): Promise<Record<string, string>> {
  const markdown = await readFile(path.join(ROOT, page), 'utf8');
  const files: Record<string, string> = {};
  for (const [, name, code] of markdown.matchAll(/^```ts\n\/\/ (\S+)\n([\s\S]*?)^```/gm)) files[name!] = code!;
  for (const [, name, code] of markdown.matchAll(/^```[a-z]+ ([^\s`]+)\n([\s\S]*?)^```/gm)) files[name!] = code!;
  return files;
}

/** The command as a reader runs it against a local server: its port for 8080, their token for `dpl_...`, the CLI from the sources. */
function asReaderRuns(command: string, port: number, deployToken: string): string {
  return command
    .replaceAll('localhost:8080', `localhost:${port}`)
    .replaceAll('dpl_...', deployToken)
    .replace('npx blume', BLUME_CLI_FROM_SOURCES);
}

export interface ReaderServer {
  server: RunningServer;
  port: number;
  /** The server's BLUME_DATA_DIR (embedded database, blobs, secret key). */
  dataDir: string;
  /** A deploy token of the static site `site`, as the README's quick start mints one. */
  deployToken: string;
  /** Runs one of the page's commands as the reader does, with `sh`, from `cwd` (the project folder) with `env` set. */
  run(command: string, env?: Record<string, string>, cwd?: string): Promise<CliResult>;
  close(): Promise<void>;
}

/**
 * `blume serve` on embedded defaults at http://localhost:<port>, with an admin, a static site and its
 * deploy token (the README's quick start). `node` is the Node binary the server runs on.
 */
export async function startReaderServer(
  site: string,
  env: Record<string, string> = {},
  node: string = process.execPath,
): Promise<ReaderServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'blume-reader-'));
  const port = await freePort();
  const serverEnv = { BLUME_DATA_DIR: dataDir, BLUME_PUBLIC_URL: `http://localhost:${port}`, ...env };
  const admin = await runBlume(
    ['create-admin', '-u', 'admin', '-e', 'admin@example.com', '-p', 'a long password'],
    serverEnv,
  );
  if (admin.status !== 0) throw new Error(`create-admin failed: ${admin.stderr}`);
  const server = await startBlume([], { ...serverEnv, BLUME_BIND: `127.0.0.1:${port}` }, node);
  const login = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: 'admin', password: 'a long password' }),
  });
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const post = (url: string, body: unknown) =>
    fetch(server.url + url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const created = await post('/api/sites', { id: site, kind: 'static' });
  if (created.status !== 201) throw new Error(`site creation failed: ${await created.text()}`);
  const deployToken = (
    (await (await post(`/api/sites/${site}/deploy-tokens`, { name: 'reader' })).json()) as { token: string }
  ).token;
  return {
    server,
    port,
    dataDir,
    deployToken,
    run: (command, env = {}, cwd = ROOT) =>
      runCommand(['sh', '-c', asReaderRuns(command, port, deployToken)], env, cwd),
    close: async () => {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** How a docs test runs one kind of command of a page: the command's pattern and the step it becomes. */
export interface CommandRule<Step> {
  pattern: RegExp;
  step: (match: RegExpExecArray) => Step;
}

/** The step of the one rule that matches `command`; fails naming the page and section when none or several do. */
export function stepOf<Step>(page: string, rules: Array<CommandRule<Step>>, section: string, command: string): Step {
  const matches = rules.flatMap((rule) => {
    const match = rule.pattern.exec(command);
    return match ? [{ rule, match }] : [];
  });
  if (matches.length !== 1)
    throw new Error(`${page} (${section}): no single mapping for \`${command}\`; add one to the test`);
  return matches[0]!.rule.step(matches[0]!.match);
}
