// Rewrites links and images between source files to the URLs the build produces, and refuses links
// that lead nowhere: a link to a missing or draft page, a missing asset, or a path above the docs
// folder fails the build with the file and line. Links to a missing heading are only warned about,
// once every page's headings are known (checkAnchors). The targets are plain data, so the pages'
// links can be rewritten on worker threads (page-threads.ts).
import path from 'node:path';
import type { Token } from 'markdown-it';
import type { BuildProblem, BuildWarning } from './errors.js';
import { encodePath } from './pages.js';
import { isMarkdownFile } from './source-tree.js';

export interface LinkTargets {
  /** Source path of a published page -> its URL. */
  pagesBySource: Map<string, string>;
  /** URL of every page, generated folder pages included. */
  pageUrls: Set<string>;
  /** Folder -> URL of its page. */
  folderPages: Map<string, string>;
  assets: Set<string>;
  drafts: Set<string>;
}

/** The page a link is written in. */
export interface LinkSource {
  source: string;
  /** Folder of the source, the base of relative links. */
  folderOfSource: string;
  url: string;
  body: string;
  bodyLine: number;
}

/** A link to a heading of a page (by its URL), checked when all pages' headings are known. */
export interface AnchorLink {
  target: string;
  fragment: string;
  href: string;
  line: number;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

type Resolution = { url: string; target?: string } | { problem: BuildProblem['code']; reason: string };

/** Where `href`, written in `from`, leads: the URL to link to and the target page's URL, or why it leads nowhere. */
function resolveLink(from: Pick<LinkSource, 'folderOfSource' | 'url'>, href: string, targets: LinkTargets): Resolution {
  const hashAt = href.indexOf('#');
  const fragment = hashAt === -1 ? '' : href.slice(hashAt);
  const beforeHash = hashAt === -1 ? href : href.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const query = queryAt === -1 ? '' : beforeHash.slice(queryAt);
  let rawPath = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  if (rawPath === '') return { url: query + fragment, target: from.url };
  try {
    rawPath = decodeURIComponent(rawPath);
  } catch {
    return { problem: 'broken_link', reason: 'is not a valid URL path' };
  }
  const joined = rawPath.startsWith('/') ? rawPath.slice(1) : path.posix.join(from.folderOfSource, rawPath);
  const resolved = path.posix.normalize(joined === '' ? '.' : joined).replace(/\/$/, '');
  if (resolved === '..' || resolved.startsWith('../'))
    return { problem: 'link_outside_root', reason: 'points outside the docs folder' };
  const rel = resolved === '.' ? '' : resolved;
  const suffix = query + fragment;
  if (isMarkdownFile(rel)) {
    const url = targets.pagesBySource.get(rel);
    if (url !== undefined) return { url: url + suffix, target: url };
    if (targets.drafts.has(rel))
      return { problem: 'broken_link', reason: 'links to a draft page, which is not published' };
    return { problem: 'broken_link', reason: 'links to a page that does not exist' };
  }
  if (targets.assets.has(rel)) return { url: `/${encodePath(rel)}${suffix}` };
  const folderPage = targets.folderPages.get(rel);
  if (folderPage !== undefined) return { url: folderPage + suffix, target: folderPage };
  // Links may also use the built URL (`../install/`) instead of the source file name.
  const byUrl = `/${encodePath(rel)}/`;
  if (targets.pageUrls.has(byUrl)) return { url: byUrl + suffix, target: byUrl };
  return { problem: 'broken_link', reason: 'links to a file that does not exist' };
}

/** Rewrites link and image targets in place; returns the problems (fatal) and the links to headings to check. */
export function rewriteLinks(
  page: LinkSource,
  tokens: Token[],
  targets: LinkTargets,
): { problems: BuildProblem[]; anchors: AnchorLink[] } {
  const problems: BuildProblem[] = [];
  const anchors: AnchorLink[] = [];
  let bodyLines: string[] | undefined;
  const lineOf = (token: Token, needle: string): number => {
    const map = token.map;
    if (map === null) return page.bodyLine;
    bodyLines ??= page.body.split('\n');
    for (let line = map[0]; line < Math.max(map[1], map[0] + 1); line += 1) {
      if (bodyLines[line]?.includes(needle)) return page.bodyLine + line;
    }
    return page.bodyLine + map[0];
  };

  let block: Token | undefined;
  for (const token of tokens) {
    if (token.map !== null) block = token;
    if (token.children === null) continue;
    for (const child of token.children) {
      const attr = child.type === 'link_open' ? 'href' : child.type === 'image' ? 'src' : undefined;
      if (attr === undefined) continue;
      // Bare URLs found by linkify are external by construction.
      if (child.markup === 'linkify') continue;
      const href = child.attrGet(attr);
      if (href === null || SCHEME.test(href) || href.startsWith('//')) continue;
      const resolution = resolveLink(page, href, targets);
      const line = lineOf(block ?? token, href);
      if ('problem' in resolution) {
        problems.push({
          code: resolution.problem,
          file: page.source,
          line,
          message: `broken link "${href}": ${resolution.reason}`,
        });
        continue;
      }
      child.attrSet(attr, resolution.url);
      const hashAt = href.indexOf('#');
      const fragment = hashAt === -1 ? '' : decodeFragment(href.slice(hashAt + 1));
      if (fragment !== '' && resolution.target !== undefined)
        anchors.push({ target: resolution.target, fragment, href, line });
    }
  }
  return { problems, anchors };
}

/** What a page offers as link targets inside it. */
interface AnchorTarget {
  source: string;
  url: string;
  headings: readonly { id: string }[];
  htmlIds: ReadonlySet<string>;
}

/** Warnings for links, written in `file`, to headings their page does not have. */
export function checkAnchors(
  file: string,
  anchors: AnchorLink[],
  pagesByUrl: ReadonlyMap<string, AnchorTarget>,
): BuildWarning[] {
  const warnings: BuildWarning[] = [];
  for (const anchor of anchors) {
    const target = pagesByUrl.get(anchor.target);
    if (target === undefined || hasAnchor(target, anchor.fragment)) continue;
    warnings.push({
      file,
      line: anchor.line,
      message: `link "${anchor.href}" names a heading that ${target.source || target.url} does not have`,
    });
  }
  return warnings;
}

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

function hasAnchor(page: AnchorTarget, id: string): boolean {
  return page.headings.some((heading) => heading.id === id) || page.htmlIds.has(id) || /^fn(ref)?\d+(:\d+)?$/.test(id);
}
