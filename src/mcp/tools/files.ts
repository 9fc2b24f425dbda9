// Local paths the upload tools read: a folder (packed into a tar.gz here) or an archive file.
import { lstat, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { archiveUpload, packDirectory } from '../../deploy/cli.js';
import { ToolFailure } from '../api.js';
import type { FileAccess } from '../tool.js';

async function resolveAllowed(files: FileAccess, given: string): Promise<string> {
  if (files.kind === 'none') {
    throw new ToolFailure(
      'This MCP endpoint reads no files on its server (BLUME_MCP_FILES_DIR is not set); run `blume mcp` beside the files instead.',
    );
  }
  const base = files.kind === 'under' ? files.root : process.cwd();
  const resolved = await realpath(path.resolve(base, given)).catch(() => {
    throw new ToolFailure(
      `Nothing exists at ${given}: give a folder or a .tar.gz archive${files.kind === 'under' ? ` under ${files.root}` : ''}; nothing was uploaded.`,
    );
  });
  if (files.kind === 'under') {
    const root = await realpath(files.root);
    if (resolved !== root && !resolved.startsWith(`${root}${path.sep}`))
      throw new ToolFailure(
        `${given} is outside ${files.root}, the only folder this endpoint reads; nothing was uploaded.`,
      );
  }
  return resolved;
}

/**
 * Runs `send` with a multipart `archive` upload of the folder or archive at `given`, and cleans up
 * the packed copy afterwards whatever happens.
 */
export async function withArchiveUpload<T>(
  files: FileAccess,
  given: string,
  send: (upload: ReturnType<typeof archiveUpload>) => Promise<T>,
): Promise<T> {
  const source = await resolveAllowed(files, given);
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
