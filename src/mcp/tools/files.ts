// Local paths the upload tools read: a folder (packed into a tar.gz here) or an archive file. Over
// HTTP each site reads only its own subfolder of BLUME_MCP_FILES_DIR, and a path outside it answers
// exactly as a path that does not exist, so no caller learns what else is on the server's disk.
import { lstat, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archiveUpload, packDirectory } from '../../deploy/cli.js';
import { ToolFailure } from '../api.js';
import type { FileAccess } from '../tool.js';

async function resolveAllowed(files: FileAccess, site: string, given: string): Promise<string> {
  if (files.kind === 'none') {
    throw new ToolFailure(
      'This MCP endpoint reads no files on its server (BLUME_MCP_FILES_DIR is not set); run `blume mcp` beside the files instead.',
    );
  }
  if (files.kind === 'any') {
    return realpath(path.resolve(process.cwd(), given)).catch(() => {
      throw new ToolFailure(`Nothing exists at ${given}: give a folder or a .tar.gz archive; nothing was uploaded.`);
    });
  }
  const notHere = new ToolFailure(
    `No folder or .tar.gz archive at ${given} in this site's folder (${site}/ in BLUME_MCP_FILES_DIR on the server); nothing was uploaded.`,
  );
  const root = await realpath(path.join(files.root, site)).catch(() => {
    throw notHere;
  });
  const resolved = await realpath(path.resolve(root, given)).catch(() => {
    throw notHere;
  });
  if (resolved !== root && !resolved.startsWith(`${root}${path.sep}`)) throw notHere;
  return resolved;
}

/**
 * Runs `send` with a multipart `archive` upload of the folder or archive at `given` (for `site`),
 * and cleans up the packed copy afterwards whatever happens.
 */
export async function withArchiveUpload<T>(
  files: FileAccess,
  site: string,
  given: string,
  send: (upload: ReturnType<typeof archiveUpload>) => Promise<T>,
): Promise<T> {
  const source = await resolveAllowed(files, site, given);
  const work = await mkdtemp(path.join(tmpdir(), 'blume-mcp-'));
  try {
    let archive = source;
    if ((await lstat(source)).isDirectory()) {
      archive = path.join(work, 'site.tar.gz');
      await packDirectory(source, archive).catch((error: Error) => {
        throw new ToolFailure(`Cannot pack ${given}: ${error.message}; nothing was uploaded.`);
      });
    }
    return await send(archiveUpload(archive, (await stat(archive)).size));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
