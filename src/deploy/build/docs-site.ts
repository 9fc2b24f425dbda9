// buildDocsSite: a folder of Markdown in, a complete static docs site out (pages, navigation, table
// of contents, search index, sitemap.xml, 404.html, fingerprinted CSS and JS, copied assets).
// Every problem in the content fails the build with the file (and line) named; nothing partial is
// reported as success. Runs inside the build sandbox (see sandbox.ts), but is plain code that tests
// and the benchmark call directly too.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Token } from 'markdown-it';
import { performance } from 'node:perf_hooks';
import { escapeHtml, escapeXml } from '../../lib/html.js';
import { DocsBuildError, type BuildProblem, type BuildWarning } from './errors.js';
import { decodeUtf8, parseSource, type PageMeta } from './front-matter.js';
import { rewriteLinks, type LinkTargets } from './links.js';
import { sanitizePageHtml } from './html-policy.js';
import { createMarkdown, inlineText, type PageEnv } from './markdown.js';
import { buildNavigation, NavigationRenderer, readingOrder, type NavNode } from './navigation.js';
import { OutputWriter } from './output-writer.js';
import { encodePath, folderOutFile, folderUrl, placePage, prettifyName, type Page } from './pages.js';
import { buildSearchFiles, pageSections } from './search-index.js';
import { parseSiteConfigJson, resolveSiteConfig, type SiteConfig } from './site-config.js';
import { restoreMath } from './math.js';
import { defaultScanLimits, scanSourceTree, type ScanLimits, type SourceFile } from './source-tree.js';
import { clientScript } from './theme/client-script.js';
import { renderPage, type ThemeAssets } from './theme/layout.js';
import { siteStyles } from './theme/styles.js';

export interface DocsBuildOptions {
  /** Production origin (`https://docs.example.com`) for sitemap.xml and canonical links; blume.json `url` otherwise. */
  siteUrl?: string;
  /** The built site may not exceed this many bytes (default 512 MiB, the release size limit). */
  maxOutputBytes?: number;
  limits?: Partial<ScanLimits>;
  /** Source path -> when it last changed (git commit time), shown on pages and in sitemap.xml. */
  pageDates?: ReadonlyMap<string, Date>;
  /** Progress lines; the sandbox streams them to the build log. */
  log?: (line: string) => void;
}

export interface BuildTimings {
  scanMs: number;
  parseMs: number;
  renderMs: number;
  writeMs: number;
  totalMs: number;
}

export interface DocsBuildResult {
  pages: number;
  files: number;
  bytes: number;
  warnings: BuildWarning[];
  timings: BuildTimings;
}

/** Generated files live under this folder; a source folder of the same name is refused. */
export const ASSET_DIR = '_blume';
const RESERVED = new Set([ASSET_DIR, 'sitemap.xml', '404.html', 'robots.txt']);
const READ_CONCURRENCY = 64;

export async function buildDocsSite(inputDir: string, outputDir: string, options: DocsBuildOptions = {}): Promise<DocsBuildResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const input = path.resolve(inputDir);
  const output = path.resolve(outputDir);
  await prepareOutput(output);

  const tree = await scanSourceTree(input, { ...defaultScanLimits, ...options.limits });
  const scanned = performance.now();
  log(`found ${tree.pages.length} Markdown files and ${tree.assets.length} other files`);

  const md = createMarkdown();
  const warnings: BuildWarning[] = [];
  const parsed = await mapLimit(tree.pages, READ_CONCURRENCY, async (file) => {
    const text = decodeUtf8(await readFile(file.abs), file.rel);
    const source = parseSource(text, file.rel);
    return { file, ...source };
  });
  const configSources: { file: string; data: unknown }[] = [];
  const rootIndex = parsed.find((p) => /^(index|readme)\.(md|markdown)$/i.test(p.file.rel));
  if (rootIndex?.meta.site !== undefined) configSources.push({ file: rootIndex.file.rel, data: rootIndex.meta.site });
  if (tree.config !== undefined) {
    const text = decodeUtf8(await readFile(tree.config.abs), tree.config.rel);
    configSources.push({ file: tree.config.rel, data: parseSiteConfigJson(text, tree.config.rel) });
  }
  const site = resolveSiteConfig(configSources);
  const siteUrl = (options.siteUrl ?? site.url)?.replace(/\/+$/, '');

  const drafts = new Set(parsed.filter((p) => p.meta.draft).map((p) => p.file.rel));
  const published = parsed.filter((p) => !p.meta.draft);
  if (drafts.size > 0) log(`skipped ${drafts.size} draft page${drafts.size === 1 ? '' : 's'}`);
  const indexFolders = new Set(published.filter((p) => /(^|\/)index\.(md|markdown)$/i.test(p.file.rel)).map((p) => folderOf(p.file.rel)));
  const pages = published.map((p) => {
    const place = placePage(p.file.rel, (folder) => indexFolders.has(folder));
    const env: PageEnv = { file: p.file.rel, headings: [], warnings, bodyLine: p.bodyLine };
    const tokens = md.parse(p.body, env);
    const { firstIsH1, titleFromContent } = pageTitle(tokens);
    const fallback = place.isFolderPage ? (place.folder === '' ? site.title : prettifyName(path.posix.basename(place.folder))) : prettifyName(path.posix.basename(p.file.rel));
    const firstParagraph = tokens.findIndex((t, i) => t.type === 'paragraph_open' && inlineText(tokens[i + 1]).trim() !== '');
    const page: Page = {
      source: p.file.rel,
      folderOfSource: folderOf(p.file.rel),
      ...place,
      meta: p.meta,
      title: p.meta.title ?? titleFromContent ?? fallback,
      description: p.meta.description ?? truncate(firstParagraph === -1 ? '' : inlineText(tokens[firstParagraph + 1]), 160),
      hasOwnTitle: firstIsH1,
      body: p.body,
      tokens,
      env,
    };
    return page;
  });
  addFolderPages(pages, site);
  const parsedAt = performance.now();

  checkPlacement(pages, tree.assets);
  const targets: LinkTargets = {
    pagesBySource: new Map(pages.filter((p) => p.source !== '').map((p) => [p.source, p])),
    pagesByUrl: new Map(pages.map((p) => [p.url, p])),
    folderPages: new Map(pages.filter((p) => p.isFolderPage).map((p) => [p.folder, p])),
    assets: new Set(tree.assets.map((a) => a.rel)),
    drafts,
  };
  const problems: BuildProblem[] = [];
  for (const page of pages) {
    const found = rewriteLinks(page, targets);
    problems.push(...found.problems);
    warnings.push(...found.warnings);
  }
  if (site.logo !== undefined && !targets.assets.has(site.logo)) {
    problems.push({ code: 'site_config', file: configSources.at(-1)?.file ?? 'blume.json', message: `logo "${site.logo}" is not a file in the docs folder` });
  }
  if (problems.length > 0) throw new DocsBuildError(problems);

  const writer = new OutputWriter(output, options.maxOutputBytes ?? 512 * 1024 * 1024);
  const nav = buildNavigation(pages, site.nav);
  const order = readingOrder(nav);
  const sectionTitle = new Map(pages.filter((p) => p.isFolderPage).map((p) => [p.folder, p.title]));
  const search = buildSearchFiles(
    order.map((node) => ({
      title: node.page.title,
      url: node.url,
      section: node.page.isFolderPage ? (node.page.folder === '' ? '' : (sectionTitle.get(folderOf(node.page.folder)) ?? '')) : (sectionTitle.get(node.page.folder) ?? ''),
      sections: pageSections(node.page.tokens),
    })),
  );
  const searchHash = createHash('sha256');
  for (const [name, content] of search.files) searchHash.update(name).update('\0').update(content).update('\0');
  const assets: ThemeAssets = {
    cssUrl: `/${ASSET_DIR}/blume.${fingerprint(siteStyles)}.css`,
    jsUrl: `/${ASSET_DIR}/blume.${fingerprint(clientScript)}.js`,
    searchIndexUrl: `/${ASSET_DIR}/search/${searchHash.digest('hex').slice(0, 10)}/`,
    ...(site.logo === undefined ? {} : { logoUrl: `/${site.logo.split('/').map(encodeURIComponent).join('/')}` }),
  };
  let writeWait = 0;
  const timedWrite = async (work: Promise<void>): Promise<void> => {
    const at = performance.now();
    await work;
    writeWait += performance.now() - at;
  };
  await timedWrite(writer.write(assets.cssUrl.slice(1), siteStyles));
  await timedWrite(writer.write(assets.jsUrl.slice(1), clientScript));
  for (const [name, content] of search.files) await timedWrite(writer.write(assets.searchIndexUrl.slice(1) + name, content));

  const lastUpdated = (page: Page): Date | undefined => (page.source === '' ? undefined : options.pageDates?.get(page.source));
  const renderer = new NavigationRenderer(nav);
  const position = new Map(order.map((node, index) => [node.page, index]));
  const nodeOf = new Map(order.map((node) => [node.page, node]));
  const renderStarted = performance.now();
  for (const page of pages) {
    const index = position.get(page);
    const previous = index === undefined ? undefined : order[index - 1];
    const next = index === undefined ? undefined : order[index + 1];
    const rendered = page.source === '' ? renderFolderListing(nodeOf.get(page)) : md.renderer.render(page.tokens, md.options, page.env);
    const contentHtml = restoreMath(page.env.hasHtml === true ? sanitizePageHtml(rendered, { file: page.source, warnings, keepFirstH1: page.hasOwnTitle }) : rendered, page.env);
    const html = renderPage(site, assets, {
      title: page.title,
      description: page.description || (site.description ?? ''),
      ...(page.hasOwnTitle ? {} : { heading: page.title }),
      contentHtml,
      navHtml: renderer.render(page),
      headings: page.env.headings,
      ...(previous === undefined ? {} : { previous: { title: previous.title, url: previous.url } }),
      ...(next === undefined ? {} : { next: { title: next.title, url: next.url } }),
      ...(siteUrl === undefined || page.isNotFound ? {} : { canonicalUrl: siteUrl + page.url }),
      ...(siteUrl === undefined || assets.logoUrl === undefined ? {} : { imageUrl: siteUrl + assets.logoUrl }),
      ...(lastUpdated(page) === undefined ? {} : { lastUpdated: lastUpdated(page)! }),
      ...(site.editUrl === undefined || page.source === '' ? {} : { editUrl: site.editUrl + encodePath(page.source) }),
      isHome: page.url === '/',
    });
    await timedWrite(writer.write(page.outFile, html));
  }
  if (!pages.some((p) => p.isNotFound)) {
    const html = renderPage(site, assets, {
      title: 'Page not found',
      description: '',
      heading: 'Page not found',
      contentHtml: `<p>There is no page at this address. Try the search above, or start from <a href="/">${escapeHtml(nav.title)}</a>.</p>\n`,
      navHtml: renderer.render(nav.page),
      headings: [],
      isHome: false,
    });
    await timedWrite(writer.write('404.html', html));
  }
  if (siteUrl === undefined) warnings.push({ file: '', message: 'no site URL (blume.json "url"); sitemap.xml lists paths without an origin' });
  await timedWrite(writer.write('sitemap.xml', renderSitemap(siteUrl ?? '', order, lastUpdated)));
  await timedWrite(writer.write('robots.txt', `User-agent: *\nAllow: /\n${siteUrl === undefined ? '' : `Sitemap: ${siteUrl}/sitemap.xml\n`}`));
  for (const asset of tree.assets) await timedWrite(writer.copy(asset.rel, asset.abs, asset.size));
  await timedWrite(writer.flush());
  const finished = performance.now();

  const renderMs = finished - renderStarted - writeWait;
  const timings: BuildTimings = {
    scanMs: round(scanned - started),
    parseMs: round(parsedAt - scanned),
    renderMs: round(renderMs + (renderStarted - parsedAt)),
    writeMs: round(writeWait),
    totalMs: round(finished - started),
  };
  log(`built ${pages.length} pages, ${writer.files} files, ${writer.bytes} bytes in ${timings.totalMs} ms (scan ${timings.scanMs}, parse ${timings.parseMs}, render ${timings.renderMs}, write ${timings.writeMs})`);
  return { pages: pages.length, files: writer.files, bytes: writer.bytes, warnings, timings };
}

async function prepareOutput(output: string): Promise<void> {
  await mkdir(output, { recursive: true });
  const existing = await readdir(output);
  if (existing.length > 0) throw new Error(`the output folder ${output} is not empty`);
}

const RAW_H1 = /^\s*<h1\b[^>]*>([\s\S]*?)<\/h1>/i;

/**
 * The page's own title, when its content starts with a level-1 heading (Markdown or raw HTML
 * `<h1 ...>`, with raw HTML blocks such as `<a id>` before it skipped). Every later level-1
 * Markdown heading becomes level 2, so a page has one H1 (raw ones are demoted by the sanitizer).
 */
function pageTitle(tokens: Token[]): { firstIsH1: boolean; titleFromContent?: string } {
  let first = 0;
  while (tokens[first]?.type === 'html_block' && !RAW_H1.test(tokens[first]!.content) && tokens[first]!.content.replace(/<[^>]*>/g, '').trim() === '') first += 1;
  const token = tokens[first];
  let title: string | undefined;
  if (token?.type === 'heading_open' && token.tag === 'h1') title = inlineText(tokens[first + 1]).trim();
  else if (token?.type === 'html_block') title = RAW_H1.exec(token.content)?.[1]?.replace(/<[^>]*>/g, '').trim();
  const firstIsH1 = title !== undefined;
  const keep = firstIsH1 && token?.type === 'heading_open' ? token : undefined;
  for (const t of tokens) {
    if ((t.type === 'heading_open' || t.type === 'heading_close') && t.tag === 'h1' && t !== keep && !(keep !== undefined && t === tokens[first + 2])) t.tag = 'h2';
  }
  return { firstIsH1, ...(title ? { titleFromContent: title } : {}) };
}

function folderOf(rel: string): string {
  const dir = path.posix.dirname(rel);
  return dir === '.' ? '' : dir;
}

/** Every folder holding pages gets a page of its own, listing its entries when the source has none. */
function addFolderPages(pages: Page[], site: SiteConfig): void {
  const have = new Set(pages.filter((p) => p.isFolderPage).map((p) => p.folder));
  const need = new Set<string>(['']);
  for (const page of pages) {
    for (let folder = page.folder; folder !== ''; folder = folderOf(folder)) need.add(folder);
  }
  for (const folder of need) {
    if (have.has(folder)) continue;
    const meta: PageMeta = { draft: false };
    pages.push({
      source: '',
      folder,
      folderOfSource: folder,
      isFolderPage: true,
      isNotFound: false,
      url: folderUrl(folder),
      outFile: folderOutFile(folder),
      meta,
      title: folder === '' ? site.title : prettifyName(path.posix.basename(folder)),
      description: '',
      hasOwnTitle: false,
      body: '',
      tokens: [],
      env: { file: folder, headings: [], warnings: [], bodyLine: 1 },
    });
  }
}

/** Two sources may not produce the same file, nor collide with a copied asset or a generated file. */
function checkPlacement(pages: Page[], assets: SourceFile[]): void {
  const problems: BuildProblem[] = [];
  const owner = new Map<string, string>();
  for (const page of pages) {
    if (page.source === '') continue;
    const other = owner.get(page.outFile);
    if (other !== undefined) problems.push({ code: 'url_conflict', file: page.source, message: `is published at ${page.url}, as is ${other}` });
    else owner.set(page.outFile, page.source);
  }
  for (const asset of assets) {
    const top = asset.rel.split('/')[0]!;
    if (RESERVED.has(top)) problems.push({ code: 'url_conflict', file: asset.rel, message: `uses a name Blume generates (${top})` });
    const other = owner.get(asset.rel);
    if (other !== undefined) problems.push({ code: 'url_conflict', file: asset.rel, message: `would overwrite the page built from ${other}` });
  }
  for (const page of pages) {
    if (page.source !== '' && page.source.split('/')[0] === ASSET_DIR) problems.push({ code: 'url_conflict', file: page.source, message: `uses a name Blume generates (${ASSET_DIR})` });
  }
  if (problems.length > 0) throw new DocsBuildError(problems);
}

function renderFolderListing(node: NavNode | undefined): string {
  const children = node?.children ?? [];
  if (children.length === 0) return '<p>This section has no pages yet.</p>\n';
  return `<ul class="section-list">\n${children.map((c) => `<li><a href="${escapeHtml(c.url)}">${escapeHtml(c.title)}</a>${c.page.description === '' ? '' : ` — ${escapeHtml(c.page.description)}`}</li>`).join('\n')}\n</ul>\n`;
}

function renderSitemap(origin: string, order: NavNode[], lastUpdated: (page: Page) => Date | undefined): string {
  const urls = order
    .map((node) => {
      const date = lastUpdated(node.page);
      return `<url><loc>${escapeXml(origin + node.url)}</loc>${date === undefined ? '' : `<lastmod>${date.toISOString()}</lastmod>`}</url>`;
    })
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}

function fingerprint(content: string): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 10);
}

function truncate(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}

function round(ms: number): number {
  return Math.round(ms);
}

async function mapLimit<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
