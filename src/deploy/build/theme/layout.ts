// The page shell of built docs sites: top bar (logo, title, search, theme toggle), navigation,
// article with its table of contents (beside it from 1200 px, folded above it below), edit link and
// last-updated date, previous/next links, and OpenGraph/Twitter tags for link previews. Every value
// from content is escaped here; the article HTML comes from the Markdown renderer and is sanitized.
import { escapeHtml } from '../../../lib/html.js';
import type { Heading } from '../markdown.js';
import type { HtmlParts } from '../navigation.js';
import type { SiteConfig } from '../site-config.js';
import { themeBootScript } from './client-script.js';
import { uiStrings, type UiStrings } from './strings.js';

/** The favicon of a site without a logo: a five-petal flower in Blume's accent. */
export const defaultIcon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<g fill="#4f46e5" transform="translate(16 16)">${[0, 72, 144, 216, 288]
  .map((angle) => `<ellipse rx="5" ry="9" cy="-7" transform="rotate(${angle})"/>`)
  .join('')}</g><circle cx="16" cy="16" r="4" fill="#fbbf24"/></svg>
`;

export interface ThemeAssets {
  cssUrl: string;
  jsUrl: string;
  /** The search box's code, loaded on its first use. */
  searchJsUrl: string;
  searchIndexUrl: string;
  logoUrl?: string;
  /** The site's logo, or Blume's default icon. */
  iconUrl: string;
  /** The Mermaid renderer, on a site where a page has a diagram. */
  diagramsJsUrl?: string;
}

interface Link {
  title: string;
  url: string;
}

interface PageView {
  title: string;
  description: string;
  /** Title shown in a heading by the layout; omitted when the content starts with its own. */
  heading?: string;
  contentHtml: string;
  nav: HtmlParts;
  /** The sections above the page, from the home page down. */
  breadcrumbs: Link[];
  /** The top bar's section links (blume.json `tabs`), the one holding the page marked. */
  tabs?: Array<Link & { current: boolean }>;
  headings: Heading[];
  previous?: { title: string; url: string };
  next?: { title: string; url: string };
  canonicalUrl?: string;
  /** Absolute URL of the site's logo, for link previews. */
  imageUrl?: string;
  /** When the page's source last changed (git commit time when built from a repository). */
  lastUpdated?: Date;
  /** Where to edit the page's source (from the `editUrl` site setting). */
  editUrl?: string;
  isHome: boolean;
  /** The page has a Mermaid diagram: its script loads the renderer. */
  hasDiagrams?: boolean;
}

export function renderPage(site: SiteConfig, assets: ThemeAssets, view: PageView): HtmlParts {
  const e = escapeHtml;
  const t = uiStrings(site.language);
  const fullTitle = view.isHome && view.title === site.title ? site.title : `${view.title} · ${site.title}`;
  const toc = view.headings.filter((h) => h.level === 2 || h.level === 3);
  const logo = assets.logoUrl === undefined ? '' : `<img src="${e(assets.logoUrl)}" alt="">`;
  const icon = `\n<link rel="icon" href="${e(assets.iconUrl)}">`;
  const canonical = view.canonicalUrl === undefined ? '' : `\n<link rel="canonical" href="${e(view.canonicalUrl)}">`;
  const description = view.description === '' ? '' : `\n<meta name="description" content="${e(view.description)}">`;
  const social = [
    ['og:type', 'website'],
    ['og:site_name', site.title],
    ['og:title', view.title],
    ...(view.description === '' ? [] : [['og:description', view.description]]),
    ...(view.canonicalUrl === undefined ? [] : [['og:url', view.canonicalUrl]]),
    ...(view.imageUrl === undefined ? [] : [['og:image', view.imageUrl]]),
    ['og:locale', site.language.replace('-', '_')],
  ]
    .map(([property, content]) => `\n<meta property="${property}" content="${e(content!)}">`)
    .join('');
  const twitter = `\n<meta name="twitter:card" content="${view.imageUrl === undefined ? 'summary' : 'summary_large_image'}">`;
  const tocList = toc
    .map((h) => `<li class="level-${h.level}"><a href="#${e(encodeURIComponent(h.id))}">${e(h.text)}</a></li>`)
    .join('\n');
  const tocHtml =
    toc.length === 0
      ? ''
      : `<nav aria-labelledby="toc-title"><h2 id="toc-title">${e(t.onThisPage)}</h2><ul>\n${tocList}\n</ul></nav>`;
  const tocInline =
    toc.length === 0
      ? ''
      : `<details class="toc-inline"><summary>${e(t.onThisPage)}</summary><ul>\n${tocList}\n</ul></details>\n`;
  const updated =
    view.lastUpdated === undefined
      ? ''
      : `<p class="last-updated">${e(t.lastUpdated)} <time datetime="${e(view.lastUpdated.toISOString())}">${e(view.lastUpdated.toLocaleDateString(site.language, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }))}</time></p>`;
  const edit = view.editUrl === undefined ? '' : `<a class="edit-link" href="${e(view.editUrl)}">${e(t.editPage)}</a>`;
  const pageMeta = updated === '' && edit === '' ? '' : `<div class="page-meta">${edit}${updated}</div>\n`;
  const pager =
    view.previous === undefined && view.next === undefined
      ? ''
      : `<nav class="pager" aria-label="${e(t.pager)}">${view.previous === undefined ? '' : `<a class="prev" href="${e(view.previous.url)}" rel="prev"><span>${e(t.previous)}</span>${e(view.previous.title)}</a>`}${view.next === undefined ? '' : `<a class="next" href="${e(view.next.url)}" rel="next"><span>${e(t.next)}</span>${e(view.next.title)}</a>`}</nav>`;
  const crumbs =
    view.breadcrumbs.length === 0
      ? ''
      : `<nav class="breadcrumbs" aria-label="${e(t.breadcrumbs)}"><ol>${view.breadcrumbs
          .map((link) => `<li><a href="${e(link.url)}">${e(link.title)}</a></li>`)
          .join('')}</ol></nav>\n`;
  const tabs =
    view.tabs === undefined || view.tabs.length === 0
      ? ''
      : `\n<nav class="site-tabs" aria-label="${e(t.sections)}">${view.tabs
          .map((tab) => `<a href="${e(tab.url)}"${tab.current ? ' aria-current="true"' : ''}>${e(tab.title)}</a>`)
          .join('')}</nav>`;
  const diagrams =
    view.hasDiagrams && assets.diagramsJsUrl !== undefined ? ` data-diagrams="${e(assets.diagramsJsUrl)}"` : '';
  const head = `<!doctype html>
<html lang="${e(site.language)}"${clientWords(t)}${diagrams}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(fullTitle)}</title>${description}${canonical}${icon}${social}${twitter}
<meta name="generator" content="Blume">
<link rel="stylesheet" href="${e(assets.cssUrl)}">
<script>${themeBootScript}</script>
<script src="${e(assets.jsUrl)}" defer></script>
</head>
<body>
<a class="skip" href="#content">${e(t.skipToContent)}</a>
<header class="topbar">
<button type="button" class="icon-button menu-button" id="menu-button" aria-controls="sidebar" aria-expanded="false" aria-label="${e(t.menu)}">&#9776;</button>
<a class="brand" href="/">${logo}<span>${e(site.title)}</span></a>${tabs}
<form class="search" id="search" role="search" data-index="${e(assets.searchIndexUrl)}" data-script="${e(assets.searchJsUrl)}">
<input id="search-input" type="search" placeholder="${e(t.searchPlaceholder)}" aria-label="${e(t.searchLabel)}" autocomplete="off">
<ul class="search-results" id="search-results" hidden></ul>
</form>
<button type="button" class="icon-button" id="theme-toggle" aria-label="${e(t.themeToggle)}">&#9680;</button>
</header>
<div class="layout">
<nav class="sidebar" id="sidebar" aria-label="${e(t.navigation)}">
`;
  const tail = `
</nav>
<main id="content">
${crumbs}<article class="doc">
${view.heading === undefined ? withInlineToc(view.contentHtml, tocInline) : `<h1>${e(view.heading)}</h1>\n${tocInline}${view.contentHtml}`}
</article>
${pageMeta}${pager}
</main>
<aside class="toc">${tocHtml}</aside>
</div>
<footer class="site-footer">${e(t.builtWith)}</footer>
</body>
</html>
`;
  return [head, ...view.nav, tail];
}

/** The client script's words, on `<html>` where they are not its English defaults. */
function clientWords(t: UiStrings): string {
  const words = { copy: [t.copy, 'Copy'], copied: [t.copied, 'Copied'], 'no-results': [t.noResults, 'No results'] };
  return Object.entries(words)
    .filter(([, [word, english]]) => word !== english)
    .map(([name, [word]]) => ` data-${name}="${escapeHtml(word!)}"`)
    .join('');
}

/** The folded table of contents goes right after the page's own H1. */
function withInlineToc(contentHtml: string, tocInline: string): string {
  const end = contentHtml.indexOf('</h1>');
  if (end === -1) return tocInline + contentHtml;
  const at = end + '</h1>'.length;
  return `${contentHtml.slice(0, at)}\n${tocInline}${contentHtml.slice(at)}`;
}
