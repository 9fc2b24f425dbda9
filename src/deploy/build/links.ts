// Rewrites links and images between source files to the URLs the build produces, and refuses links
// that lead nowhere: a link to a missing or draft page, a missing asset, or a path above the docs
// folder fails the build with the file and line. Links to a missing heading are only warned about.
import path from 'node:path';
import type { Token } from 'markdown-it';
import type { BuildProblem, BuildWarning } from './errors.js';
import { encodePath, type Page } from './pages.js';
import { isMarkdownFile } from './source-tree.js';

export interface LinkTargets {
  pagesBySource: Map<string, Page>;
  pagesByUrl: Map<string, Page>;
  folderPages: Map<string, Page>;
  assets: Set<string>;
  drafts: Set<string>;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

type Resolution = { url: string; target?: Page } | { problem: BuildProblem['code']; reason: string };

export function resolveLink(from: Page, href: string, targets: LinkTargets): Resolution {
  const hashAt = href.indexOf('#');
  const fragment = hashAt === -1 ? '' : href.slice(hashAt);
  const beforeHash = hashAt === -1 ? href : href.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  const query = queryAt === -1 ? '' : beforeHash.slice(queryAt);
  let rawPath = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  if (rawPath === '') return { url: query + fragment, target: from };
  try {
    rawPath = decodeURIComponent(rawPath);
  } catch {
    return { problem: 'broken_link', reason: 'is not a valid URL path' };
  }
  const joined = rawPath.startsWith('/') ? rawPath.slice(1) : path.posix.join(from.folderOfSource, rawPath);
  const resolved = path.posix.normalize(joined === '' ? '.' : joined).replace(/\/$/, '');
  if (resolved === '..' || resolved.startsWith('../')) return { problem: 'link_outside_root', reason: 'points outside the docs folder' };
  const rel = resolved === '.' ? '' : resolved;
  const suffix = query + fragment;
  if (isMarkdownFile(rel)) {
    const page = targets.pagesBySource.get(rel);
    if (page !== undefined) return { url: page.url + suffix, target: page };
    if (targets.drafts.has(rel)) return { problem: 'broken_link', reason: 'links to a draft page, which is not published' };
    return { problem: 'broken_link', reason: 'links to a page that does not exist' };
  }
  if (targets.assets.has(rel)) return { url: `/${encodePath(rel)}${suffix}` };
  const folderPage = targets.folderPages.get(rel);
  if (folderPage !== undefined) return { url: folderPage.url + suffix, target: folderPage };
  // Links may also use the built URL (`../install/`) instead of the source file name.
  const byUrl = targets.pagesByUrl.get(`/${encodePath(rel)}/`);
  if (byUrl !== undefined) return { url: byUrl.url + suffix, target: byUrl };
  return { problem: 'broken_link', reason: 'links to a file that does not exist' };
}

/** Rewrites link and image targets in place; returns the problems (fatal) and warnings found. */
export function rewriteLinks(page: Page, targets: LinkTargets): { problems: BuildProblem[]; warnings: BuildWarning[] } {
  const problems: BuildProblem[] = [];
  const warnings: BuildWarning[] = [];
  let bodyLines: string[] | undefined;
  const lineOf = (token: Token, needle: string): number => {
    const map = token.map;
    if (map === null) return page.env.bodyLine;
    bodyLines ??= page.body.split('\n');
    for (let line = map[0]; line < Math.max(map[1], map[0] + 1); line += 1) {
      if (bodyLines[line]?.includes(needle)) return page.env.bodyLine + line;
    }
    return page.env.bodyLine + map[0];
  };

  let block: Token | undefined;
  for (const token of page.tokens) {
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
        problems.push({ code: resolution.problem, file: page.source, line, message: `broken link "${href}": ${resolution.reason}` });
        continue;
      }
      child.attrSet(attr, resolution.url);
      const hashAt = href.indexOf('#');
      const fragment = hashAt === -1 ? '' : decodeFragment(href.slice(hashAt + 1));
      const target = resolution.target;
      if (fragment !== '' && target !== undefined && !hasAnchor(target, fragment)) {
        warnings.push({ file: page.source, line, message: `link "${href}" names a heading that ${target.source || target.url} does not have` });
      }
    }
  }
  return { problems, warnings };
}

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

function hasAnchor(page: Page, id: string): boolean {
  return page.env.headings.some((heading) => heading.id === id) || page.env.htmlIds?.has(id) === true || /^fn(ref)?\d+(:\d+)?$/.test(id);
}
