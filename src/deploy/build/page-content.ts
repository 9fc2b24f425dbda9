// The work a docs build does for each Markdown page on its own, wherever it runs (the calling thread
// or a worker thread, see page-threads.ts): parse, take the title and description, rewrite links,
// collect the search text, render and sanitize the article. Input and output are plain data.
import type MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import type { BuildProblem, BuildWarning } from './errors.js';
import { sanitizePageHtml } from './html-policy.js';
import { rewriteLinks, type AnchorLink, type LinkSource, type LinkTargets } from './links.js';
import { inlineText, type Heading, type PageEnv } from './markdown.js';
import { loadMath, restoreMath } from './math.js';
import { pageSections, type SearchSection } from './search-index.js';

/** A page to build, with the language its callout titles are written in. */
export interface PageSource extends LinkSource {
  language: string;
}

export interface PageContent {
  /** The page's first level-1 heading, when its content starts with one. */
  titleFromContent?: string;
  hasOwnTitle: boolean;
  /** The first paragraph's text, cut to a meta description. */
  description: string;
  headings: Heading[];
  htmlIds: string[];
  contentHtml: string;
  searchSections: SearchSection[];
  /** Broken links: the build fails when any page has one. */
  problems: BuildProblem[];
  anchors: AnchorLink[];
  /** Found while parsing (callouts, tabs). */
  parseWarnings: BuildWarning[];
  /** Found while rendering (code languages, math, dropped HTML). */
  renderWarnings: BuildWarning[];
}

export async function buildPageContent(md: MarkdownIt, page: PageSource, targets: LinkTargets): Promise<PageContent> {
  const parseWarnings: BuildWarning[] = [];
  const env: PageEnv = {
    file: page.source,
    headings: [],
    warnings: parseWarnings,
    bodyLine: page.bodyLine,
    language: page.language,
  };
  const tokens = md.parse(page.body, env);
  const { firstIsH1, titleFromContent } = pageTitle(tokens);
  const firstParagraph = tokens.findIndex(
    (t, i) => t.type === 'paragraph_open' && inlineText(tokens[i + 1]).trim() !== '',
  );
  const { problems, anchors } = rewriteLinks(page, tokens, targets);
  const searchSections = pageSections(tokens);
  const renderWarnings: BuildWarning[] = [];
  env.warnings = renderWarnings;
  if (env.hasMath === true) await loadMath();
  const rendered = md.renderer.render(tokens, md.options, env);
  const sanitized =
    env.hasHtml === true
      ? await sanitizePageHtml(rendered, { file: page.source, warnings: renderWarnings, keepFirstH1: firstIsH1 })
      : rendered;
  return {
    ...(titleFromContent === undefined ? {} : { titleFromContent }),
    hasOwnTitle: firstIsH1,
    description: truncate(firstParagraph === -1 ? '' : inlineText(tokens[firstParagraph + 1]), 160),
    headings: env.headings,
    htmlIds: [...(env.htmlIds ?? [])],
    contentHtml: restoreMath(sanitized, env),
    searchSections,
    problems,
    anchors,
    parseWarnings,
    renderWarnings,
  };
}

const RAW_H1 = /^\s*<h1\b[^>]*>([\s\S]*?)<\/h1>/i;

/**
 * The page's own title, when its content starts with a level-1 heading (Markdown or raw HTML
 * `<h1 ...>`, with raw HTML blocks such as `<a id>` before it skipped). Every later level-1
 * Markdown heading becomes level 2, so a page has one H1 (raw ones are demoted by the sanitizer).
 */
function pageTitle(tokens: Token[]): { firstIsH1: boolean; titleFromContent?: string } {
  let first = 0;
  while (
    tokens[first]?.type === 'html_block' &&
    !RAW_H1.test(tokens[first]!.content) &&
    tokens[first]!.content.replace(/<[^>]*>/g, '').trim() === ''
  )
    first += 1;
  const token = tokens[first];
  let title: string | undefined;
  if (token?.type === 'heading_open' && token.tag === 'h1') title = inlineText(tokens[first + 1]).trim();
  else if (token?.type === 'html_block')
    title = RAW_H1.exec(token.content)?.[1]
      ?.replace(/<[^>]*>/g, '')
      .trim();
  const firstIsH1 = title !== undefined;
  const keep = firstIsH1 && token?.type === 'heading_open' ? token : undefined;
  for (const t of tokens) {
    if (
      (t.type === 'heading_open' || t.type === 'heading_close') &&
      t.tag === 'h1' &&
      t !== keep &&
      !(keep !== undefined && t === tokens[first + 2])
    )
      t.tag = 'h2';
  }
  return { firstIsH1, ...(title ? { titleFromContent: title } : {}) };
}

function truncate(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
}
