// The navigation mirrors the folder tree: a folder is a section led by its own page, entries sort
// by front matter `order`, then title; blume.json `nav` lists paths that go first, in its order.
// Only the sections on the way to the current page are open; the HTML of closed sections is the
// same on every page, so it is rendered and encoded to UTF-8 once per section and reused: on a
// large site it is most of every page's bytes.
import path from 'node:path';
import { escapeHtml } from '../../lib/html.js';
import type { Page } from './pages.js';

export interface NavNode {
  /** Source path of a page, or folder path of a section ('' for the root). */
  path: string;
  title: string;
  order: number | undefined;
  url: string;
  page: Page;
  /** Present on sections (folders). */
  children?: NavNode[];
}

export function buildNavigation(pages: Page[], navOrder: string[] = []): NavNode {
  const folders = new Map<string, NavNode>();
  const folderPages = pages.filter((page) => page.isFolderPage);
  for (const page of folderPages) {
    folders.set(page.folder, {
      path: page.folder,
      title: page.title,
      order: page.meta.order,
      url: page.url,
      page,
      children: [],
    });
  }
  for (const node of folders.values()) {
    if (node.path === '') continue;
    const parentPath = path.posix.dirname(node.path) === '.' ? '' : path.posix.dirname(node.path);
    folders.get(parentPath)?.children!.push(node);
  }
  for (const page of pages) {
    if (page.isFolderPage || page.isNotFound) continue;
    folders
      .get(page.folder)
      ?.children!.push({ path: page.source, title: page.title, order: page.meta.order, url: page.url, page });
  }
  const rank = new Map<string, number>();
  navOrder.forEach((entry, index) => {
    rank.set(entry, index);
    if (!/\.(md|markdown)$/i.test(entry)) rank.set(`${entry}.md`, index);
  });
  const compare = (a: NavNode, b: NavNode): number => {
    const ra = rank.get(a.path) ?? Infinity;
    const rb = rank.get(b.path) ?? Infinity;
    if (ra !== rb) return ra < rb ? -1 : 1;
    const oa = a.order ?? Infinity;
    const ob = b.order ?? Infinity;
    if (oa !== ob) return oa < ob ? -1 : 1;
    return a.title.localeCompare(b.title, 'en', { numeric: true }) || a.path.localeCompare(b.path);
  };
  for (const node of folders.values()) node.children!.sort(compare);
  const root = folders.get('');
  if (root === undefined) throw new Error('the root folder page is made before the navigation');
  return root;
}

/** Pages in reading order (a section's page, then its entries), for previous/next links. */
export function readingOrder(root: NavNode): NavNode[] {
  const out: NavNode[] = [];
  const visit = (node: NavNode): void => {
    out.push(node);
    for (const child of node.children ?? []) visit(child);
  };
  visit(root);
  return out;
}

/** HTML in pieces, text or UTF-8 bytes, written one after the other. */
export type HtmlParts = (string | Buffer)[];

export class NavigationRenderer {
  private readonly closed = new Map<string, Buffer>();

  constructor(private readonly root: NavNode) {}

  render(current: Page): HtmlParts {
    const parts: HtmlParts = [`<ul class="nav-list">\n<li>${this.link(this.root, current)}</li>\n`];
    this.items(this.root.children ?? [], current, parts);
    parts.push('</ul>');
    return parts;
  }

  private items(nodes: NavNode[], current: Page, parts: HtmlParts): void {
    for (const node of nodes) {
      if (node.children === undefined) {
        parts.push(`<li>${this.link(node, current)}</li>\n`);
        continue;
      }
      const onPath = !current.isNotFound && isWithin(current.folderOfSource, node.path);
      if (!onPath) {
        let cached = this.closed.get(node.path);
        if (cached === undefined) {
          const inner: HtmlParts = [
            `<li class="nav-section">${this.link(node, undefined)}<details>${toggle(node)}<ul>\n`,
          ];
          this.items(node.children, current, inner);
          inner.push('</ul></details></li>\n');
          cached = Buffer.concat(encodeHtml(inner));
          this.closed.set(node.path, cached);
        }
        parts.push(cached);
        continue;
      }
      parts.push(`<li class="nav-section">${this.link(node, current)}<details open>${toggle(node)}<ul>\n`);
      this.items(node.children, current, parts);
      parts.push('</ul></details></li>\n');
    }
  }

  private link(node: NavNode, current: Page | undefined): string {
    const here = current !== undefined && node.page === current ? ' aria-current="page"' : '';
    return `<a href="${escapeHtml(node.url)}"${here}>${escapeHtml(node.title)}</a>`;
  }
}

/**
 * A section's fold: its own `<summary>`, beside the section's link rather than around it (a link in
 * a summary is two controls in one, which assistive technology cannot tell apart).
 */
function toggle(node: NavNode): string {
  return `<summary aria-label="${escapeHtml(node.title)}"></summary>`;
}

/** The sections from the root down to `page`'s (the page itself left out): a breadcrumb trail. */
export function trailTo(root: NavNode, page: Page): NavNode[] {
  const walk = (node: NavNode, trail: NavNode[]): NavNode[] | undefined => {
    for (const child of node.children ?? []) {
      if (child.page === page) return [...trail, node];
      if (child.children !== undefined) {
        const found = walk(child, [...trail, node]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return root.page === page ? [] : (walk(root, []) ?? []);
}

/**
 * The top bar's links (blume.json `tabs`): the home page, then each top-level section; the one
 * whose pages hold `page` is current (the home page's for top-level pages).
 */
export function tabsFor(root: NavNode, page: Page): Array<{ title: string; url: string; current: boolean }> {
  const sections = (root.children ?? []).filter((node) => node.children !== undefined);
  const holder = sections.find((node) => node.page === page || trailTo(root, page).includes(node));
  return [root, ...sections].map((node) => ({
    title: node.title,
    url: node.url,
    current: node === (holder ?? root),
  }));
}

function isWithin(folder: string, section: string): boolean {
  return folder === section || folder.startsWith(`${section}/`);
}

/** The UTF-8 bytes of HTML in parts, each run of text encoded at once. */
export function encodeHtml(parts: HtmlParts): Buffer[] {
  const out: Buffer[] = [];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    if (text !== '') out.push(Buffer.from(text));
    text = '';
    out.push(part);
  }
  if (text !== '') out.push(Buffer.from(text));
  return out;
}
