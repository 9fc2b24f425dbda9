// Where each Markdown source lands: `guide/install.md` is served at `/guide/install/` from
// `guide/install/index.html`; `index.md` (or `README.md` when a folder has no index.md) is the
// folder's own page; a root `404.md` becomes `/404.html`.
import path from 'node:path';
import type { PageMeta } from './front-matter.js';
import type { Heading } from './markdown.js';
import type { SearchSection } from './search-index.js';

export interface Page {
  /** Source path relative to the docs folder; '' for a folder page Blume generates. */
  source: string;
  /** Folder (relative, '' for the root) the page belongs to in the navigation. */
  folder: string;
  /** Folder of the source file, the base of its relative links ('' at the root). */
  folderOfSource: string;
  /** The folder's own page (index.md, README.md or generated) rather than a page inside it. */
  isFolderPage: boolean;
  isNotFound: boolean;
  url: string;
  outFile: string;
  meta: PageMeta;
  title: string;
  description: string;
  /** Title comes from the first line of content (a level-1 heading), not from the layout. */
  hasOwnTitle: boolean;
  headings: Heading[];
  /** Anchors the page's raw HTML defines (`<a id="x">`), which links may target. */
  htmlIds: ReadonlySet<string>;
  /** The article's HTML, sanitized; '' for a generated folder page (its listing is made from the navigation). */
  contentHtml: string;
  searchSections: SearchSection[];
}

export function encodePath(rel: string): string {
  return rel.split('/').map(encodeURIComponent).join('/');
}

export function folderUrl(folder: string): string {
  return folder === '' ? '/' : `/${encodePath(folder)}/`;
}

export function folderOutFile(folder: string): string {
  return folder === '' ? 'index.html' : `${folder}/index.html`;
}

export interface PagePlace {
  folder: string;
  isFolderPage: boolean;
  isNotFound: boolean;
  url: string;
  outFile: string;
}

/** `hasIndex` tells whether the source's folder has an index.md, which outranks README.md. */
export function placePage(source: string, hasIndex: (folder: string) => boolean): PagePlace {
  const dir = path.posix.dirname(source) === '.' ? '' : path.posix.dirname(source);
  const stem = path.posix.basename(source).replace(/\.(md|markdown)$/i, '');
  const lower = stem.toLowerCase();
  if (lower === 'index' || (lower === 'readme' && !hasIndex(dir))) {
    return { folder: dir, isFolderPage: true, isNotFound: false, url: folderUrl(dir), outFile: folderOutFile(dir) };
  }
  if (dir === '' && stem === '404')
    return { folder: '', isFolderPage: false, isNotFound: true, url: '/404.html', outFile: '404.html' };
  const rel = dir === '' ? stem : `${dir}/${stem}`;
  return {
    folder: dir,
    isFolderPage: false,
    isNotFound: false,
    url: `/${encodePath(rel)}/`,
    outFile: `${rel}/index.html`,
  };
}

export function prettifyName(name: string): string {
  const words = name
    .replace(/\.(md|markdown)$/i, '')
    .replace(/^\d+[-_. ]+/, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  return words === '' ? name : words.charAt(0).toUpperCase() + words.slice(1);
}
