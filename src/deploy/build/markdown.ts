// The Markdown dialect of docs builds: CommonMark plus the GitHub extensions (tables, strikethrough,
// autolinks, task lists), footnotes, heading anchors with `{#custom-id}`, and code highlighted at
// build time, callouts and tabs (blocks.ts), math as MathML (math.ts). Raw HTML is allowed: pages that hold any are sanitized
// to the safe subset of html-policy.ts after rendering. Link targets with script-capable schemes
// (javascript:, vbscript:, data: except images) are dropped by markdown-it's validateLink.
// Fence info takes a language, `title="server.js"` and lines to highlight: `{1,3-5}` or
// `hl_lines="1 3"`.
import MarkdownIt from 'markdown-it';
import footnote from 'markdown-it-footnote';
import type { PluginSimple, StateCore, Token } from 'markdown-it';
import { highlightCode } from '../../lib/code-highlight.js';
import { escapeHtml } from '../../lib/html.js';
import { blocksPlugin } from './blocks.js';
import { mathPlugin, renderTex, type MathEnv } from './math.js';

export interface Heading {
  level: number;
  id: string;
  text: string;
}

/** Per-page state the renderer reads and fills (markdown-it passes it to every rule). */
export interface PageEnv extends MathEnv {
  headings: Heading[];
  /** Set when the page holds raw HTML, which the build then sanitizes. */
  hasHtml?: boolean;
  /** Set when the page holds math, for which the build loads KaTeX before rendering. */
  hasMath?: boolean;
  /** Anchors raw HTML defines (`<a id="x">`, `<a name="x">`), which links may target. */
  htmlIds?: Set<string>;
  /** The page's language (callout titles); English when absent. */
  language?: string;
}

const PLAIN_LANGUAGES = new Set(['', 'text', 'plain', 'plaintext', 'txt', 'mermaid']);

export function createMarkdown(): MarkdownIt {
  const md = new MarkdownIt('default', { html: true, linkify: true, typographer: false });
  // @types/markdown-it-footnote is typed against markdown-it's CommonJS typings; the plugin itself
  // takes the ESM instance unchanged.
  md.use(footnote as unknown as PluginSimple);
  md.use(blocksPlugin);
  md.use(mathPlugin);
  md.core.ruler.push('blume_page_needs', markPageNeeds);
  md.core.ruler.after('inline', 'blume_heading_ids', assignHeadingIds);
  md.core.ruler.after('inline', 'blume_task_lists', markTaskLists);

  md.renderer.rules.fence = (tokens, idx, _options, env: PageEnv) => {
    const token = tokens[idx]!;
    const fence = parseFenceInfo(token.info);
    if (fence.lang === 'math') return renderTex(token.content.trim(), true, env, token.map?.[0]);
    return renderCode(token.content, fence, env, token.map?.[0]);
  };
  md.renderer.rules.code_block = (tokens, idx) =>
    renderCode(tokens[idx]!.content, { lang: '', lines: new Set() }, undefined, undefined);
  md.renderer.rules.heading_close = (tokens, idx, options, _env, self) => {
    const open = tokens[idx - 2];
    const id = open?.attrGet('id');
    const anchor = id ? `<a class="anchor" href="#${escapeHtml(id)}" aria-label="Link to this section">#</a>` : '';
    return anchor + self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.task_checkbox = (tokens, idx) =>
    `<input type="checkbox" class="task" disabled${(tokens[idx]!.meta as { checked: boolean }).checked ? ' checked' : ''}> `;
  md.renderer.rules.table_open = (tokens, idx, options, _env, self) =>
    '<div class="table-wrap">' + self.renderToken(tokens, idx, options);
  md.renderer.rules.table_close = (tokens, idx, options, _env, self) =>
    self.renderToken(tokens, idx, options) + '</div>';
  return md;
}

const HTML_ID = /\s(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;

/** Marks what rendering the page needs: the sanitizer for raw HTML (whose ids it collects), KaTeX for math. */
function markPageNeeds(state: StateCore): void {
  const env = state.env as PageEnv;
  const html: string[] = [];
  let math = false;
  for (const token of state.tokens) {
    if (token.type === 'html_block') html.push(token.content);
    else if (token.type === 'math_block' || (token.type === 'fence' && fenceLanguage(token.info) === 'math'))
      math = true;
    else if (token.type === 'inline') {
      for (const child of token.children ?? []) {
        if (child.type === 'html_inline') html.push(child.content);
        else if (child.type === 'math_inline') math = true;
      }
    }
  }
  env.hasMath = math;
  env.hasHtml = html.length > 0;
  if (!env.hasHtml) return;
  env.htmlIds = new Set();
  for (const chunk of html)
    for (const match of chunk.matchAll(HTML_ID)) env.htmlIds.add(match[1] ?? match[2] ?? match[3]!);
}

interface FenceInfo {
  lang: string;
  title?: string;
  /** 1-based line numbers to highlight. */
  lines: Set<number>;
}

function fenceLanguage(info: string): string {
  return /^[^\s{]*/.exec(info.trim())![0].toLowerCase();
}

function parseFenceInfo(info: string): FenceInfo {
  const trimmed = info.trim();
  const lang = fenceLanguage(trimmed);
  const rest = trimmed.slice(lang.length);
  const title = /\btitle=(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(rest);
  const ranges = /\{([\d,\s-]+)\}/.exec(rest)?.[1] ?? /\bhl_lines=["']([\d\s-]+)["']/.exec(rest)?.[1] ?? '';
  const lines = new Set<number>();
  for (const part of ranges.split(/[\s,]+/).filter(Boolean)) {
    const [from, to] = part.split('-').map(Number);
    if (from === undefined || !Number.isInteger(from)) continue;
    const last = to === undefined || !Number.isInteger(to) ? from : Math.min(to, from + 10_000);
    for (let n = from; n <= last; n += 1) lines.add(n);
  }
  const titleText = title?.[1] ?? title?.[2] ?? title?.[3];
  return { lang, lines, ...(titleText === undefined ? {} : { title: titleText }) };
}

/** Highlighted HTML split into lines, each closing and reopening the spans that cross it. */
function splitLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let current = '';
  for (const part of html.split(/(<\/?span[^>]*>|\n)/)) {
    if (part === '\n') {
      lines.push(current + '</span>'.repeat(open.length));
      current = open.join('');
    } else if (part.startsWith('</span')) {
      open.pop();
      current += part;
    } else if (part.startsWith('<span')) {
      open.push(part);
      current += part;
    } else current += part;
  }
  if (current !== '' && current !== open.join('')) lines.push(current + '</span>'.repeat(open.length));
  return lines;
}

function renderCode(code: string, fence: FenceInfo, env: PageEnv | undefined, mapLine: number | undefined): string {
  const { lang } = fence;
  let body = highlightCode(code, lang);
  if (body === undefined) {
    body = escapeHtml(code);
    if (env !== undefined && !PLAIN_LANGUAGES.has(lang)) {
      env.warnings.push({
        file: env.file,
        line: (mapLine ?? 0) + env.bodyLine,
        message: `unknown code language "${lang}", shown without highlighting`,
      });
    }
  }
  const langAttr = lang === '' ? '' : ` data-lang="${escapeHtml(lang)}"`;
  const langClass = lang === '' ? '' : ` language-${escapeHtml(lang)}`;
  if (fence.lines.size > 0) {
    body = splitLines(body)
      .map((line, i) => (fence.lines.has(i + 1) ? `<span class="line highlighted">${line}</span>\n` : `${line}\n`))
      .join('');
  }
  const pre = `<pre class="code"${langAttr}><code class="hljs${langClass}">${body}</code></pre>\n`;
  if (fence.title === undefined) return pre;
  return `<div class="code-block"><div class="code-title">${escapeHtml(fence.title)}</div>\n${pre}</div>\n`;
}

export function inlineText(token: Token | undefined): string {
  if (token?.children == null) return token?.content ?? '';
  let text = '';
  for (const child of token.children) {
    if (child.type === 'text' || child.type === 'code_inline') text += child.content;
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += ' ';
    else if (child.type === 'image') text += inlineText(child);
  }
  return text;
}

function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    // One hyphen per space, as GitHub does: "a | b" becomes "a--b", so links written for GitHub work.
    .replace(/\s/g, '-');
  return slug === '' ? 'section' : slug;
}

const CUSTOM_ID = /\s*\{#([A-Za-z][\w-]*)\}\s*$/;

function assignHeadingIds(state: StateCore): void {
  const env = state.env as PageEnv;
  const used = new Map<string, number>();
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i += 1) {
    const open = tokens[i]!;
    if (open.type !== 'heading_open') continue;
    const inline = tokens[i + 1];
    let id: string | undefined;
    const last = inline?.children?.at(-1);
    if (last?.type === 'text') {
      const custom = CUSTOM_ID.exec(last.content);
      if (custom !== null) {
        id = custom[1];
        last.content = last.content.slice(0, custom.index);
      }
    }
    const text = inlineText(inline).trim();
    let base = id ?? slugify(text);
    // Footnote ids (fn1, fnref1) and the page's own landmarks live in the same id space.
    if (/^fn(ref)?\d/.test(base) || base === 'content' || base === 'search') base = `${base}-section`;
    const seen = used.get(base) ?? 0;
    used.set(base, seen + 1);
    const unique = seen === 0 ? base : `${base}-${seen}`;
    open.attrSet('id', unique);
    env.headings.push({ level: Number(open.tag.slice(1)), id: unique, text });
  }
}

const TASK = /^\[([ xX])\][ \t]/;

function markTaskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 2; i < tokens.length; i += 1) {
    const inline = tokens[i]!;
    if (
      inline.type !== 'inline' ||
      tokens[i - 1]?.type !== 'paragraph_open' ||
      tokens[i - 2]?.type !== 'list_item_open'
    )
      continue;
    const first = inline.children?.[0];
    const match = first?.type === 'text' ? TASK.exec(first.content) : null;
    if (first === undefined || match === null) continue;
    first.content = first.content.slice(match[0].length);
    // Blume's own markup, not the author's HTML: a page with task lists needs no sanitizing for them.
    const checkbox = new state.Token('task_checkbox', 'input', 0);
    checkbox.meta = { checked: match[1] !== ' ' };
    inline.children!.unshift(checkbox);
    tokens[i - 2]!.attrJoin('class', 'task-item');
    for (let j = i - 3; j >= 0; j -= 1) {
      const candidate = tokens[j]!;
      if (
        (candidate.type === 'bullet_list_open' || candidate.type === 'ordered_list_open') &&
        candidate.level === tokens[i - 2]!.level - 1
      ) {
        if (!(candidate.attrGet('class') ?? '').includes('task-list')) candidate.attrJoin('class', 'task-list');
        break;
      }
    }
  }
}
