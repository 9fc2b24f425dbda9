// Walks the docs folder and sorts its entries into pages (Markdown), static assets and the optional
// site config, refusing anything that could make the build read outside the folder or write outside
// the output: symbolic links, devices and fifos, and names that are not plain, printable UTF-8.
// The walk is synchronous: it runs in the build's own process, which has nothing else to do, and
// one call per file through the thread pool took several times longer on a site of many folders.
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DocsBuildError, type BuildProblem } from './errors.js';

export interface SourceFile {
  /** Path relative to the docs folder with forward slashes, e.g. `guide/install.md`. */
  rel: string;
  abs: string;
  size: number;
}

export interface SourceTree {
  pages: SourceFile[];
  assets: SourceFile[];
  config: SourceFile | undefined;
  /** Folders (relative, '' for the root) in walk order. */
  folders: string[];
  skipped: string[];
}

export interface ScanLimits {
  maxFiles: number;
  maxPageBytes: number;
  maxDepth: number;
}

export const defaultScanLimits: ScanLimits = { maxFiles: 50_000, maxPageBytes: 8 * 1024 * 1024, maxDepth: 32 };

const SITE_CONFIG_FILE = 'blume.json';

// Control characters, the backslash (a separator elsewhere) and U+FFFD, which is what Node puts in
// place of bytes that are not UTF-8 in a file name.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const HOSTILE_NAME = /[\u0000-\u001f\u007f\\\ufffd]/;

export function isMarkdownFile(rel: string): boolean {
  return /\.(md|markdown)$/i.test(rel);
}

export function scanSourceTree(root: string, limits: ScanLimits = defaultScanLimits): SourceTree {
  const tree: SourceTree = { pages: [], assets: [], config: undefined, folders: [], skipped: [] };
  const problems: BuildProblem[] = [];
  let count = 0;

  function walk(dirRel: string, depth: number): void {
    tree.folders.push(dirRel);
    const dirAbs = dirRel === '' ? root : path.join(root, dirRel);
    const entries = readdirSync(dirAbs, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = dirRel === '' ? entry.name : `${dirRel}/${entry.name}`;
      if (HOSTILE_NAME.test(entry.name) || Buffer.byteLength(entry.name) > 255) {
        problems.push({
          code: 'hostile_path',
          file: JSON.stringify(rel).slice(1, -1),
          message: 'the file name has control characters, a backslash or bytes that are not UTF-8',
        });
        continue;
      }
      // Dotfiles (.git, .DS_Store, .github) are tooling, not site content; leaving them out also
      // keeps a checked-out repository's metadata off the public site.
      if (entry.name.startsWith('.')) {
        tree.skipped.push(rel);
        continue;
      }
      if (entry.isSymbolicLink()) {
        problems.push({
          code: 'symlink',
          file: rel,
          message: 'is a symbolic link; links are not followed, so nothing outside the docs folder can be read',
        });
        continue;
      }
      if (entry.isDirectory()) {
        if (depth + 1 > limits.maxDepth) {
          problems.push({
            code: 'hostile_path',
            file: rel,
            message: `folders are nested deeper than ${limits.maxDepth} levels`,
          });
          continue;
        }
        walk(rel, depth + 1);
        continue;
      }
      if (!entry.isFile()) {
        problems.push({ code: 'special_file', file: rel, message: 'is not a regular file (device, fifo or socket)' });
        continue;
      }
      count += 1;
      if (count > limits.maxFiles)
        throw DocsBuildError.single('too_many_files', '', `the docs folder has more than ${limits.maxFiles} files`);
      const abs = path.join(dirAbs, entry.name);
      const { size } = lstatSync(abs);
      const file: SourceFile = { rel, abs, size };
      if (rel === SITE_CONFIG_FILE) tree.config = file;
      else if (isMarkdownFile(rel)) {
        if (size > limits.maxPageBytes)
          problems.push({ code: 'file_too_large', file: rel, message: `is larger than ${limits.maxPageBytes} bytes` });
        else tree.pages.push(file);
      } else tree.assets.push(file);
    }
  }

  walk('', 0);
  if (problems.length > 0) throw new DocsBuildError(problems);
  return tree;
}
