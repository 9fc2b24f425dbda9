// Math in docs pages, rendered at build time by KaTeX to MathML, which browsers lay out natively:
// no script and no font files reach the reader. Inline `$...$` (pandoc's rule: no space inside the
// dollars, no digit right after the closing one, so "$5 and $10" stays text), display `$$...$$`
// blocks and ```` ```math ```` fences. Bad TeX is a build warning and shows as code.
// The sanitizer of raw HTML never sees MathML: a rendered formula leaves a slot in the page that
// restoreMath fills after sanitizing, so authors' own <math> stays outside the safe subset.
import { randomBytes } from 'node:crypto';
import type Katex from 'katex';
import type MarkdownIt from 'markdown-it';
import type { StateBlock, StateInline } from 'markdown-it';
import { escapeHtml } from '../../lib/html.js';
import type { BuildWarning } from './errors.js';

/** The part of a page's render state math uses (markdown.ts's PageEnv extends it). */
export interface MathEnv {
  file: string;
  warnings: BuildWarning[];
  bodyLine: number;
  /** The page's rendered formulas, by slot. */
  math?: string[];
}

let katex: typeof Katex | undefined;

/** Loads KaTeX, which renderTex needs: only for a page with math, as loading it costs a thread about 0.1 s. */
export async function loadMath(): Promise<void> {
  katex ??= (await import('katex')).default;
}

/** Slots carry a per-process nonce, so a page cannot name a formula slot in its own HTML. */
const NONCE = randomBytes(6).toString('hex');
const SLOT = new RegExp(`<span data-blume-math="${NONCE}-(\\d+)"></span>`, 'g');

export function renderTex(tex: string, display: boolean, env: MathEnv, line: number | undefined): string {
  if (katex === undefined) throw new Error('renderTex needs loadMath() first');
  let html: string;
  try {
    html = katex.renderToString(tex, {
      output: 'mathml',
      displayMode: display,
      throwOnError: true,
      strict: 'ignore',
      trust: false,
      maxExpand: 1000,
    });
  } catch (error) {
    env.warnings.push({
      file: env.file,
      line: (line ?? 0) + env.bodyLine,
      message: `math could not be rendered (${(error as Error).message}); shown as code`,
    });
    return display ? `<pre><code>${escapeHtml(tex)}</code></pre>\n` : `<code>${escapeHtml(tex)}</code>`;
  }
  const math = (env.math ??= []);
  math.push(display ? `<div class="math-display">${html}</div>\n` : html);
  return `<span data-blume-math="${NONCE}-${math.length - 1}"></span>`;
}

/** Puts the page's rendered formulas back into its (sanitized) HTML. */
export function restoreMath(html: string, env: MathEnv): string {
  const math = env.math;
  if (math === undefined || math.length === 0) return html;
  return html.replace(SLOT, (slot, index: string) => math[Number(index)] ?? slot);
}

function isSpace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a;
}

function inlineMath(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (src.charCodeAt(pos) !== 0x24 /* $ */ || src.charCodeAt(pos + 1) === 0x24 || isSpace(src.charCodeAt(pos + 1)))
    return false;
  let end = pos + 1;
  for (;;) {
    end = src.indexOf('$', end);
    if (end === -1 || end > posMax) return false;
    if (src.charCodeAt(end - 1) === 0x5c /* \ */) {
      end += 1;
      continue;
    }
    break;
  }
  const next = src.charCodeAt(end + 1);
  if (end === pos + 1 || isSpace(src.charCodeAt(end - 1)) || (next >= 0x30 && next <= 0x39)) return false;
  if (!silent) {
    const token = state.push('math_inline', 'math', 0);
    token.content = src.slice(pos + 1, end);
    token.markup = '$';
  }
  state.pos = end + 1;
  return true;
}

function blockMath(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const start = state.bMarks[startLine]! + state.tShift[startLine]!;
  const firstLine = state.src.slice(start, state.eMarks[startLine]);
  if (state.sCount[startLine]! - state.blkIndent >= 4 || !firstLine.startsWith('$$')) return false;
  if (silent) return true;
  let body = firstLine.slice(2);
  let last = startLine;
  let closed = body.trimEnd().endsWith('$$');
  if (closed) body = body.trimEnd().slice(0, -2);
  while (!closed && last + 1 < endLine) {
    last += 1;
    const line = state.src.slice(state.bMarks[last]! + state.tShift[last]!, state.eMarks[last]);
    if (line.trimEnd().endsWith('$$')) {
      body += `\n${line.trimEnd().slice(0, -2)}`;
      closed = true;
    } else body += `\n${line}`;
  }
  if (!closed) return false;
  state.line = last + 1;
  const token = state.push('math_block', 'math', 0);
  token.block = true;
  token.content = body.trim();
  token.map = [startLine, state.line];
  token.markup = '$$';
  return true;
}

export function mathPlugin(md: MarkdownIt): void {
  md.inline.ruler.after('escape', 'math_inline', inlineMath);
  md.block.ruler.before('fence', 'math_block', blockMath, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
  md.renderer.rules.math_inline = (tokens, idx, _options, env: MathEnv) =>
    renderTex(tokens[idx]!.content, false, env, undefined);
  md.renderer.rules.math_block = (tokens, idx, _options, env: MathEnv) =>
    renderTex(tokens[idx]!.content, true, env, tokens[idx]!.map?.[0]);
}
