// `blume deploy <dir|archive> --site <id> [--url <portal>] [--build] [--promote]`: packs a folder
// into a tar.gz (or takes a ready archive), uploads it to the deploy API with a progress bar, and
// prints the new release. With --build the folder is Markdown, built into a docs site by the server's
// sandboxed build (its warnings are printed when it succeeds, its log when it fails). The token comes from
// BLUME_DEPLOY_TOKEN and is never printed.
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { loneFolder } from './archive.js';
import { isRulesFile } from './ingest.js';

interface DeployCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  fetch: typeof fetch;
}

const USAGE =
  'usage: blume deploy <dir|archive.tar.gz> --site <id> [--url <portal url>] [--build] [--promote]\n  --build: the folder is Markdown; the server builds it into a docs site.\n  The deploy token is read from BLUME_DEPLOY_TOKEN.\n';
const SKIPPED = new Set(['.git', '.DS_Store']);

/** Every file under `root`, relative, sorted; symbolic links are refused as the server would. */
async function listFiles(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(path.join(root, prefix), { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (SKIPPED.has(entry.name)) continue;
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isSymbolicLink()) throw new Error(`${relative} is a symbolic link; deploys take plain files only`);
    if (entry.isDirectory()) out.push(...(await listFiles(root, relative)));
    else if (entry.isFile()) out.push(relative);
    else throw new Error(`${relative} is not a plain file`);
  }
  return out;
}

interface PackedFolder {
  /** Files the release will serve: its `file_count`. */
  content: number;
  /** Rules files (`_headers`, `_redirects`, `_blume.json`) at the site root, which the release applies instead. */
  rules: string[];
}

/** Packs a folder into a tar.gz file, streaming file by file; counts the files as the server will. */
export async function packDirectory(dir: string, target: string): Promise<PackedFolder> {
  const files = await listFiles(dir);
  if (files.length === 0) throw new Error(`${dir} holds no files`);
  const pack = tar.pack();
  const writing = pipeline(pack, createGzip({ level: 6 }), createWriteStream(target));
  for (const file of files) {
    const info = await stat(path.join(dir, file));
    const sink = pack.entry({ name: file, size: info.size, mode: 0o644, mtime: info.mtime });
    await pipeline(createReadStream(path.join(dir, file)), sink);
  }
  pack.finalize();
  await writing;
  const root = loneFolder(files);
  const sitePaths = root === undefined ? files : files.map((file) => file.slice(root.length + 1));
  const rules = sitePaths.filter(isRulesFile);
  return { content: files.length - rules.length, rules };
}

/** Why a request never got an answer, from fetch's error and its cause (refused, unknown host, reset). */
function unreachable(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const detail =
    cause instanceof Error ? `${(cause as NodeJS.ErrnoException).code ?? cause.name}: ${cause.message}` : undefined;
  return detail ?? (error instanceof Error ? error.message : String(error));
}

/** Asks the server's health endpoint first, so a wrong address fails at once and says which it was. */
async function checkReachable(base: URL, io: DeployCommandIo): Promise<boolean> {
  try {
    await (await io.fetch(new URL('/up/', base))).arrayBuffer();
    return true;
  } catch (error) {
    io.stderr.write(
      `deploy failed: cannot reach Blume at ${base.origin} (${unreachable(error)}).\n` +
        'Is the server running there? Give its address with --url <portal url> (or set BLUME_PUBLIC_URL).\n',
    );
    return false;
  }
}

/** The answer's JSON, or a problem made of its status when a proxy answered with something else. */
async function readAnswer<T>(response: Response): Promise<T & { code?: string; detail?: string }> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T & { code?: string; detail?: string };
  } catch {
    return { detail: `${response.statusText || 'the answer is not JSON'}: ${text.slice(0, 200)}` } as T & {
      code?: string;
      detail?: string;
    };
  }
}

function progressBar(total: number, stderr: DeployCommandIo['stderr']): Transform {
  let sent = 0;
  let lastDrawn = -1;
  const draw = () => {
    const percent = total === 0 ? 100 : Math.floor((sent / total) * 100);
    if (percent === lastDrawn) return;
    lastDrawn = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    const line = `uploading [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}% ${(sent / 1048576).toFixed(1)}/${(total / 1048576).toFixed(1)} MiB`;
    // On a terminal the bar redraws in place; in logs it prints every tenth.
    if (stderr.isTTY) stderr.write(`\r${line}`);
    else if (percent % 10 === 0) stderr.write(`${line}\n`);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      sent += chunk.length;
      draw();
      callback(null, chunk);
    },
    flush(callback) {
      if (stderr.isTTY) stderr.write('\n');
      callback();
    },
  });
}

/**
 * The multipart body of an upload to the deploy API (`archive` field), streamed from the file of
 * `size` bytes through `through` (a progress bar), with its content type and length.
 */
export function archiveUpload(
  archive: string,
  size: number,
  through?: Transform,
): { body: Readable; headers: Record<string, string> } {
  const boundary = `blume-${Date.now().toString(36)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="site.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Readable.from(
    (async function* () {
      yield head;
      const file = createReadStream(archive);
      yield* through ? file.pipe(through) : file;
      yield tail;
    })(),
  );
  return {
    body,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + size + tail.length),
    },
  };
}

interface ReleaseAnswer {
  id: string;
  /** A failed or canceled build's answer; a build still running (202) answers the build, whose id is `id`. */
  logs?: { stream: string; line: string }[];
  file_count: number;
  size: number;
  new_blobs: number;
  preview_url: string;
  /** A docs build's warnings (`--build` only). */
  warnings?: string[];
}

export async function runDeployCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: DeployCommandIo = { stdout: process.stdout, stderr: process.stderr, fetch },
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        site: { type: 'string' },
        url: { type: 'string' },
        build: { type: 'boolean', default: false },
        promote: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const source = positionals[0];
  const site = values.site;
  const token = env.BLUME_DEPLOY_TOKEN;
  if (!source || !site || positionals.length > 1) {
    io.stderr.write(USAGE);
    return 2;
  }
  if (!token) {
    io.stderr.write('BLUME_DEPLOY_TOKEN is not set: mint a deploy token for the site in the console.\n');
    return 2;
  }
  let base: URL;
  try {
    base = new URL(values.url ?? env.BLUME_PUBLIC_URL ?? 'http://localhost:8080');
  } catch {
    io.stderr.write(`--url must be the portal's address, such as http://localhost:8080\n${USAGE}`);
    return 2;
  }
  const headers = { authorization: `Bearer ${token}` };
  if (!(await checkReachable(base, io))) return 1;

  const work = await mkdtemp(path.join(tmpdir(), 'blume-deploy-'));
  try {
    let archive = source;
    if ((await lstat(source)).isDirectory()) {
      archive = path.join(work, 'site.tar.gz');
      const packed = await packDirectory(source, archive);
      const rules = packed.rules.length > 0 ? `, and the rules in ${packed.rules.join(', ')}` : '';
      io.stderr.write(`packed ${packed.content} files from ${source}${rules}\n`);
    }
    const size = (await stat(archive)).size;
    const upload = archiveUpload(archive, size, progressBar(size, io.stderr));
    const target = new URL(`/api/deploy/${encodeURIComponent(site)}${values.build ? '/source' : ''}`, base);
    const response = await io
      .fetch(target, {
        method: 'POST',
        headers: { ...headers, ...upload.headers },
        body: Readable.toWeb(upload.body) as ReadableStream<Uint8Array>,
        duplex: 'half',
      } as RequestInit)
      .catch((error: unknown) => {
        throw new Error(`the upload to ${target.href} broke off (${unreachable(error)})`);
      });
    const answer = await readAnswer<ReleaseAnswer>(response);
    if (response.status === 202) {
      io.stderr.write(
        `build ${answer.id} is still running: follow it with GET /api/deploy/${site}/builds/${answer.id}\n`,
      );
      return 1;
    }
    if (response.status !== 201) {
      const logs = answer.logs ?? [];
      for (const entry of logs) io.stderr.write(`${entry.stream}: ${entry.line}\n`);
      // A failed build's detail lists its problems, which the log just printed holds line by line.
      const detail = logs.length > 0 ? (answer.detail ?? '').split('\n')[0]!.replace(/:$/, '') : (answer.detail ?? '');
      io.stderr.write(`deploy refused (${response.status} ${answer.code ?? ''}): ${detail}\n`);
      return 1;
    }
    for (const warning of answer.warnings ?? []) io.stderr.write(`warning: ${warning}\n`);
    io.stdout.write(
      `release ${answer.id}: ${answer.file_count} files, ${answer.size} bytes, ${answer.new_blobs} new\npreview ${answer.preview_url}\n`,
    );
    if (values.promote) {
      const promoted = await io.fetch(new URL(`/api/deploy/${encodeURIComponent(site)}/promote`, base), {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ release: answer.id }),
      });
      if (promoted.status !== 200) {
        const problem = await readAnswer<object>(promoted);
        io.stderr.write(`promote refused (${promoted.status} ${problem.code ?? ''}): ${problem.detail ?? ''}\n`);
        return 1;
      }
      io.stdout.write(`live ${answer.id}\n`);
    }
    return 0;
  } catch (error) {
    io.stderr.write(`deploy failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
