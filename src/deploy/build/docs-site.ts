// buildDocsSite: a folder of Markdown in, a complete static docs site out (pages, navigation, table
// of contents, search index, sitemap.xml, 404.html, fingerprinted CSS and JS, copied assets).
// Every problem in the content fails the build with the file (and line) named; nothing partial is
// reported as success. Runs inside the build sandbox (see sandbox.ts), but is plain code that tests
// and the benchmark call directly too.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { escapeHtml, escapeXml } from '../../lib/html.js';
import { DocsBuildError, type BuildProblem, type BuildWarning } from './errors.js';
import { decodeUtf8 } from './front-matter.js';
import { checkAnchors, type LinkTargets } from './links.js';
import {
  buildNavigation,
  encodeHtml,
  NavigationRenderer,
  readingOrder,
  tabsFor,
  trailTo,
  type NavNode,
} from './navigation.js';
import { DIAGRAMS_RENDERER_FILE, DIAGRAMS_RENDERER_PACKAGE } from './diagrams-renderer.js';
import { OutputWriter } from './output-writer.js';
import { defaultWorkerCount, PageThreads, PARALLEL_MIN_PAGES } from './page-threads.js';
import { encodePath, folderOutFile, folderUrl, placePage, prettifyName, type Page, type PagePlace } from './pages.js';
import { buildSearchFiles, pageSections } from './search-index.js';
import { parseSiteConfigJson, resolveSiteConfig, type SiteConfig } from './site-config.js';
import { defaultScanLimits, scanSourceTree, type ScanLimits, type SourceFile, type SourceTree } from './source-tree.js';
import { clientScript, searchScript } from './theme/client-script.js';
import { defaultIcon, renderPage, type ThemeAssets } from './theme/layout.js';
import { uiStrings } from './theme/strings.js';
import { siteStyles } from './theme/styles.js';

export interface DocsBuildOptions {
  /** Production origin (`https://docs.example.com`) for sitemap.xml and canonical links; blume.json `url` otherwise. */
  siteUrl?: string;
  /** The built site may not exceed this many bytes (default 512 MiB, the release size limit). */
  maxOutputBytes?: number;
  limits?: Partial<ScanLimits>;
  /** Source path -> when it last changed (git commit time), shown on pages and in sitemap.xml. */
  pageDates?: ReadonlyMap<string, Date>;
  /** The site's build environment variables: `{{ env.NAME }}` in a page's Markdown becomes the value. */
  variables?: ReadonlyMap<string, string>;
  /** Progress lines; the sandbox streams them to the build log. */
  log?: (line: string) => void;
  /**
   * A script that serves page work when started as a worker thread (the sandboxed build's entry);
   * with it, pages are built on this thread and on `workers` worker threads at once.
   */
  workerScript?: string;
  /** Worker threads besides this one (default: one per further free core, at most three). */
  workers?: number;
  /** False leaves every page to the worker threads (tests of the workers). */
  mainThreadPages?: boolean;
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
  /** Pages (sources read plus contents built) done on worker threads rather than this one. */
  workerTasks: number;
}

/** Generated files live under this folder; a source folder of the same name is refused. */
export const ASSET_DIR = '_blume';
/**
 * Mermaid's renderer, shipped with a site only when one of its pages has a diagram: beside the
 * bundled build entry, else (the builder run in this process) from node_modules.
 */
async function diagramsRenderer(): Promise<string> {
  try {
    return await readFile(path.join(path.dirname(fileURLToPath(import.meta.url)), DIAGRAMS_RENDERER_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return readFile(createRequire(import.meta.url).resolve(DIAGRAMS_RENDERER_PACKAGE), 'utf8');
}
/** How a ```` ```mermaid ```` fence comes out of the Markdown renderer. */
const DIAGRAM_CODE = '<code class="hljs language-mermaid">';
const RESERVED = new Set([ASSET_DIR, 'sitemap.xml', '404.html', 'robots.txt']);

export async function buildDocsSite(
  inputDir: string,
  outputDir: string,
  options: DocsBuildOptions = {},
): Promise<DocsBuildResult> {
  const started = performance.now();
  const log = options.log ?? (() => {});
  const input = path.resolve(inputDir);
  const output = path.resolve(outputDir);
  await prepareOutput(output);

  const tree = scanSourceTree(input, { ...defaultScanLimits, ...options.limits });
  const scanned = performance.now();
  log(`found ${tree.pages.length} Markdown files and ${tree.assets.length} other files`);
  if (tree.pages.length === 0)
    throw DocsBuildError.single(
      'no_pages',
      '',
      'the folder has no Markdown page (.md or .markdown), so there is no docs site to build; deploy it without --build to publish its files as they are',
    );
  const threads = new PageThreads(
    tree.pages.length < PARALLEL_MIN_PAGES ? undefined : options.workerScript,
    options.workers ?? defaultWorkerCount(),
    options.mainThreadPages,
  );
  try {
    return await buildSite(input, output, tree, threads, options, { started, scanned });
  } finally {
    await threads.close();
  }
}

async function buildSite(
  input: string,
  output: string,
  tree: SourceTree,
  threads: PageThreads,
  options: DocsBuildOptions,
  at: { started: number; scanned: number },
): Promise<DocsBuildResult> {
  const log = options.log ?? (() => {});
  const { started, scanned } = at;

  const warnings: BuildWarning[] = [];
  const parsed = (await threads.sources(tree.pages)).map((source, i) => ({ file: tree.pages[i]!, ...source }));
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
  if (published.length === 0)
    throw DocsBuildError.single(
      'no_pages',
      '',
      'every Markdown page is a draft (draft: true), so nothing would be published',
    );
  const indexFolders = new Set(
    published.filter((p) => /(^|\/)index\.(md|markdown)$/i.test(p.file.rel)).map((p) => folderOf(p.file.rel)),
  );
  const sources = published.map((p) => ({ ...p, place: placePage(p.file.rel, (folder) => indexFolders.has(folder)) }));
  const folderPages = folderPagesNeeded(
    sources.map((p) => p.place),
    site,
  );
  checkPlacement(sources, tree.assets);
  const targets: LinkTargets = {
    pagesBySource: new Map(sources.map((p) => [p.file.rel, p.place.url])),
    pageUrls: new Set([...sources.map((p) => p.place.url), ...folderPages.map((p) => p.url)]),
    folderPages: new Map([
      ...sources.filter((p) => p.place.isFolderPage).map((p) => [p.place.folder, p.place.url] as const),
      ...folderPages.map((p) => [p.folder, p.url] as const),
    ]),
    assets: new Set(tree.assets.map((a) => a.rel)),
    drafts,
  };

  const contents = await threads.contents(
    sources.map((p) => ({
      source: p.file.rel,
      folderOfSource: folderOf(p.file.rel),
      url: p.place.url,
      body: substituteVariables(p.body, options.variables),
      bodyLine: p.bodyLine,
      language: site.language,
    })),
    targets,
  );
  const pages: Page[] = sources.map((p, i) => {
    const content = contents[i]!;
    const { place } = p;
    const fallback = place.isFolderPage
      ? place.folder === ''
        ? site.title
        : prettifyName(path.posix.basename(place.folder))
      : prettifyName(path.posix.basename(p.file.rel));
    return {
      source: p.file.rel,
      folderOfSource: folderOf(p.file.rel),
      ...place,
      meta: p.meta,
      title: p.meta.title ?? content.titleFromContent ?? fallback,
      description: p.meta.description ?? content.description,
      hasOwnTitle: content.hasOwnTitle,
      headings: content.headings,
      htmlIds: new Set(content.htmlIds),
      contentHtml: content.contentHtml,
      searchSections: content.searchSections,
    };
  });
  pages.push(...folderPages);
  const parsedAt = performance.now();

  const pagesByUrl = new Map(pages.map((p) => [p.url, p]));
  const problems: BuildProblem[] = [];
  for (const content of contents) warnings.push(...content.parseWarnings);
  contents.forEach((content, i) => {
    problems.push(...content.problems);
    warnings.push(...checkAnchors(pages[i]!.source, content.anchors, pagesByUrl));
  });
  if (site.logo !== undefined && !targets.assets.has(site.logo)) {
    problems.push({
      code: 'site_config',
      file: configSources.at(-1)?.file ?? 'blume.json',
      message: `logo "${site.logo}" is not a file in the docs folder`,
    });
  }
  if (problems.length > 0) throw new DocsBuildError(problems);
  for (const content of contents) warnings.push(...content.renderWarnings);

  const writer = new OutputWriter(output, options.maxOutputBytes ?? 512 * 1024 * 1024);
  const nav = buildNavigation(pages, site.nav);
  const order = readingOrder(nav);
  const sectionTitle = new Map(pages.filter((p) => p.isFolderPage).map((p) => [p.folder, p.title]));
  const search = buildSearchFiles(
    order.map((node) => ({
      title: node.page.title,
      url: node.url,
      section: node.page.isFolderPage
        ? node.page.folder === ''
          ? ''
          : (sectionTitle.get(folderOf(node.page.folder)) ?? '')
        : (sectionTitle.get(node.page.folder) ?? ''),
      sections: node.page.searchSections,
    })),
  );
  const searchHash = createHash('sha256');
  for (const [name, content] of search.files) searchHash.update(name).update('\0').update(content).update('\0');
  const logoUrl = site.logo === undefined ? undefined : `/${site.logo.split('/').map(encodeURIComponent).join('/')}`;
  const assets: ThemeAssets = {
    cssUrl: `/${ASSET_DIR}/blume.${fingerprint(siteStyles)}.css`,
    jsUrl: `/${ASSET_DIR}/blume.${fingerprint(clientScript)}.js`,
    searchJsUrl: `/${ASSET_DIR}/search.${fingerprint(searchScript)}.js`,
    searchIndexUrl: `/${ASSET_DIR}/search/${searchHash.digest('hex').slice(0, 10)}/`,
    ...(logoUrl === undefined ? {} : { logoUrl }),
    iconUrl: logoUrl ?? `/${ASSET_DIR}/icon.${fingerprint(defaultIcon)}.svg`,
  };
  let writeWait = 0;
  const timedWrite = async (work: Promise<void>): Promise<void> => {
    const at = performance.now();
    await work;
    writeWait += performance.now() - at;
  };
  await timedWrite(writer.write(assets.cssUrl.slice(1), siteStyles));
  await timedWrite(writer.write(assets.jsUrl.slice(1), clientScript));
  await timedWrite(writer.write(assets.searchJsUrl.slice(1), searchScript));
  if (logoUrl === undefined) await timedWrite(writer.write(assets.iconUrl.slice(1), defaultIcon));
  const hasDiagrams = (page: Page): boolean => page.contentHtml.includes(DIAGRAM_CODE);
  if (pages.some(hasDiagrams)) {
    const renderer = await diagramsRenderer();
    assets.diagramsJsUrl = `/${ASSET_DIR}/mermaid.${fingerprint(renderer)}.js`;
    await timedWrite(writer.write(assets.diagramsJsUrl.slice(1), renderer));
  }
  for (const [name, content] of search.files)
    await timedWrite(writer.write(assets.searchIndexUrl.slice(1) + name, content));

  const lastUpdated = (page: Page): Date | undefined =>
    page.source === '' ? undefined : options.pageDates?.get(page.source);
  const renderer = new NavigationRenderer(nav);
  const position = new Map(order.map((node, index) => [node.page, index]));
  const nodeOf = new Map(order.map((node) => [node.page, node]));
  const renderStarted = performance.now();
  for (const page of pages) {
    const index = position.get(page);
    const previous = index === undefined ? undefined : order[index - 1];
    const next = index === undefined ? undefined : order[index + 1];
    const contentHtml = page.source === '' ? renderFolderListing(nodeOf.get(page)) : page.contentHtml;
    const html = renderPage(site, assets, {
      title: page.title,
      description: page.description || (site.description ?? ''),
      ...(page.hasOwnTitle ? {} : { heading: page.title }),
      contentHtml,
      nav: renderer.render(page),
      breadcrumbs: breadcrumbs(nav, page),
      ...(site.tabs ? { tabs: tabsFor(nav, page) } : {}),
      headings: page.headings,
      ...(previous === undefined ? {} : { previous: { title: previous.title, url: previous.url } }),
      ...(next === undefined ? {} : { next: { title: next.title, url: next.url } }),
      ...(siteUrl === undefined || page.isNotFound ? {} : { canonicalUrl: siteUrl + page.url }),
      ...(siteUrl === undefined || assets.logoUrl === undefined ? {} : { imageUrl: siteUrl + assets.logoUrl }),
      ...(lastUpdated(page) === undefined ? {} : { lastUpdated: lastUpdated(page)! }),
      ...(site.editUrl === undefined || page.source === '' ? {} : { editUrl: site.editUrl + encodePath(page.source) }),
      isHome: page.url === '/',
      hasDiagrams: hasDiagrams(page),
    });
    await timedWrite(writer.write(page.outFile, encodeHtml(html)));
  }
  if (!pages.some((p) => p.isNotFound)) {
    const words = uiStrings(site.language);
    const [before, after] = words.notFoundText.split('{home}');
    const html = renderPage(site, assets, {
      title: words.notFound,
      description: '',
      heading: words.notFound,
      contentHtml: `<p>${escapeHtml(before!)}<a href="/">${escapeHtml(nav.title)}</a>${escapeHtml(after ?? '')}</p>\n`,
      nav: renderer.render(nav.page),
      breadcrumbs: [],
      ...(site.tabs ? { tabs: tabsFor(nav, nav.page) } : {}),
      headings: [],
      isHome: false,
    });
    await timedWrite(writer.write('404.html', encodeHtml(html)));
  }
  if (siteUrl === undefined)
    warnings.push({ file: '', message: 'no site URL (blume.json "url"); sitemap.xml lists paths without an origin' });
  await timedWrite(writer.write('sitemap.xml', renderSitemap(siteUrl ?? '', order, lastUpdated)));
  await timedWrite(
    writer.write(
      'robots.txt',
      `User-agent: *\nAllow: /\n${siteUrl === undefined ? '' : `Sitemap: ${siteUrl}/sitemap.xml\n`}`,
    ),
  );
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
  const workerTasks = threads.workerItems;
  log(
    `built ${pages.length} pages, ${writer.files} files, ${writer.bytes} bytes in ${timings.totalMs} ms (scan ${timings.scanMs}, parse ${timings.parseMs}, render ${timings.renderMs}, write ${timings.writeMs})${workerTasks === 0 ? '' : `; ${workerTasks} page tasks on worker threads`}`,
  );
  return { pages: pages.length, files: writer.files, bytes: writer.bytes, warnings, timings, workerTasks };
}

async function prepareOutput(output: string): Promise<void> {
  await mkdir(output, { recursive: true });
  const existing = await readdir(output);
  if (existing.length > 0) throw new Error(`the output folder ${output} is not empty`);
}

/** The trail above a page in a section (a top-level page has none: the home link is the brand). */
function breadcrumbs(nav: NavNode, page: Page): Array<{ title: string; url: string }> {
  const trail = trailTo(nav, page);
  return trail.length < 2 ? [] : trail.map((node) => ({ title: node.title, url: node.url }));
}

function folderOf(rel: string): string {
  const dir = path.posix.dirname(rel);
  return dir === '.' ? '' : dir;
}

/** Every folder holding pages gets a page of its own: the pages Blume makes where the source has none. */
function folderPagesNeeded(places: PagePlace[], site: SiteConfig): Page[] {
  const have = new Set(places.filter((p) => p.isFolderPage).map((p) => p.folder));
  const need = new Set<string>(['']);
  for (const place of places) {
    for (let folder = place.folder; folder !== ''; folder = folderOf(folder)) need.add(folder);
  }
  const made: Page[] = [];
  for (const folder of need) {
    if (have.has(folder)) continue;
    made.push({
      source: '',
      folder,
      folderOfSource: folder,
      isFolderPage: true,
      isNotFound: false,
      url: folderUrl(folder),
      outFile: folderOutFile(folder),
      meta: { draft: false },
      title: folder === '' ? site.title : prettifyName(path.posix.basename(folder)),
      description: '',
      hasOwnTitle: false,
      headings: [],
      htmlIds: new Set(),
      contentHtml: '',
      searchSections: pageSections([]),
    });
  }
  return made;
}

/** Two sources may not produce the same file, nor collide with a copied asset or a generated file. */
function checkPlacement(sources: { file: SourceFile; place: PagePlace }[], assets: SourceFile[]): void {
  const problems: BuildProblem[] = [];
  const owner = new Map<string, string>();
  for (const { file, place } of sources) {
    const other = owner.get(place.outFile);
    if (other !== undefined)
      problems.push({ code: 'url_conflict', file: file.rel, message: `is published at ${place.url}, as is ${other}` });
    else owner.set(place.outFile, file.rel);
  }
  for (const asset of assets) {
    const top = asset.rel.split('/')[0]!;
    if (RESERVED.has(top))
      problems.push({ code: 'url_conflict', file: asset.rel, message: `uses a name Blume generates (${top})` });
    const other = owner.get(asset.rel);
    if (other !== undefined)
      problems.push({ code: 'url_conflict', file: asset.rel, message: `would overwrite the page built from ${other}` });
  }
  for (const { file } of sources) {
    if (file.rel.split('/')[0] === ASSET_DIR)
      problems.push({ code: 'url_conflict', file: file.rel, message: `uses a name Blume generates (${ASSET_DIR})` });
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

function round(ms: number): number {
  return Math.round(ms);
}

const VARIABLE_REFERENCE = /\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** `{{ env.NAME }}` replaced by the variable's value; a name the build has no value for stays as written. */
function substituteVariables(body: string, variables: ReadonlyMap<string, string> | undefined): string {
  if (variables === undefined || variables.size === 0 || !body.includes('{{')) return body;
  return body.replace(VARIABLE_REFERENCE, (reference, name: string) => variables.get(name) ?? reference);
}
