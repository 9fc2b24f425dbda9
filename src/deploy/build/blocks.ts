// Block syntax of docs pages beyond CommonMark: callouts and tabs.
// - GitHub alerts: a blockquote whose first line is `[!NOTE]`, `[!TIP]`, `[!IMPORTANT]`,
//   `[!WARNING]` or `[!CAUTION]`.
// - Containers: `:::note Optional title` ... `:::` (kinds: note, tip, info, important, warning,
//   caution, danger).
// - MkDocs admonitions: `!!! note "Optional title"` followed by content indented four spaces.
// - Tabs: consecutive `=== "Label"` lines, each followed by content indented four spaces. Tabs are
//   radio buttons and labels, so they switch without JavaScript; the client script syncs tabs of
//   the same label across the page and remembers the choice.
// Every form becomes the same callout tokens, rendered in one place.
import type MarkdownIt from 'markdown-it';
import type { StateBlock, StateCore, Token } from 'markdown-it';
import { escapeHtml } from '../../lib/html.js';
import { uiStrings, type CalloutKind } from './theme/strings.js';

const KINDS = new Set<string>([
  'note',
  'tip',
  'info',
  'important',
  'warning',
  'caution',
  'danger',
] satisfies CalloutKind[]);

/** A callout's title when its author gave none: its kind, in the page's language. */
function defaultTitle(kind: string, env: unknown): string {
  return uiStrings((env as BlockEnv).language).callouts[kind as CalloutKind];
}

interface CalloutMeta {
  kind: string;
  title: string;
}

interface TabMeta {
  group: number;
  index: number;
  label: string;
}

interface BlockEnv {
  tabGroups?: number;
  language?: string;
}

export function blocksPlugin(md: MarkdownIt): void {
  md.block.ruler.before('fence', 'blume_container', containerRule, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.block.ruler.before('fence', 'blume_admonition', indentedRule('admonition'), {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.block.ruler.before('fence', 'blume_tabs', indentedRule('tabs'), {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.core.ruler.after('block', 'blume_alerts', githubAlerts);

  md.renderer.rules.callout_open = (tokens, idx) => {
    const meta = tokens[idx]!.meta as CalloutMeta;
    return `<div class="callout callout-${meta.kind}" role="note"><p class="callout-title">${escapeHtml(meta.title)}</p>\n`;
  };
  md.renderer.rules.callout_close = () => '</div>\n';
  md.renderer.rules.tabs_open = () => '<div class="tabs">\n';
  md.renderer.rules.tabs_close = () => '</div>\n';
  md.renderer.rules.tab_open = (tokens, idx) => {
    const meta = tokens[idx]!.meta as TabMeta;
    const id = `tabs-${meta.group}-${meta.index}`;
    const label = escapeHtml(meta.label);
    return `<input type="radio" class="tab-input" name="tabs-${meta.group}" id="${id}" data-label="${label}"${meta.index === 0 ? ' checked' : ''}><label class="tab-label" for="${id}">${label}</label><div class="tab-panel">\n`;
  };
  md.renderer.rules.tab_close = () => '</div>\n';
}

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]);
}

function kindOf(word: string): string | undefined {
  const kind = word.toLowerCase();
  return KINDS.has(kind) ? kind : undefined;
}

const CONTAINER_OPEN = /^(:{3,})[ \t]*([A-Za-z]+)(?:[ \t]+(.*?))?[ \t]*$/;

function containerRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const open = CONTAINER_OPEN.exec(lineText(state, startLine));
  const kind = open === null ? undefined : kindOf(open[2]!);
  if (open === null || kind === undefined) return false;
  if (silent) return true;
  const fence = open[1]!;
  let next = startLine + 1;
  let closed = false;
  for (; next < endLine; next += 1) {
    if (!state.isEmpty(next) && state.sCount[next]! < state.blkIndent) break;
    if (state.sCount[next]! - state.blkIndent >= 4) continue;
    const text = lineText(state, next).trim();
    if (/^:{3,}$/.test(text) && text.length >= fence.length) {
      closed = true;
      break;
    }
  }
  pushCallout(state, { kind, title: open[3]?.trim() || defaultTitle(kind, state.env) }, startLine, next, () =>
    state.md.block.tokenize(state, startLine + 1, next),
  );
  state.line = next + (closed ? 1 : 0);
  return true;
}

function pushCallout(state: StateBlock, meta: CalloutMeta, startLine: number, endLine: number, body: () => void): void {
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'blockquote';
  state.lineMax = endLine;
  const open = state.push('callout_open', 'div', 1);
  open.block = true;
  open.meta = meta;
  open.map = [startLine, endLine];
  body();
  state.push('callout_close', 'div', -1).block = true;
  state.parentType = oldParent;
  state.lineMax = oldLineMax;
}

const ADMONITION = /^!!![ \t]+([A-Za-z]+)(?:[ \t]+"([^"]*)")?[ \t]*$/;
const TAB = /^===[ \t]+"([^"]+)"[ \t]*$/;

/** The end (exclusive) of the content indented four columns past `base` that follows `line`. */
function indentedEnd(state: StateBlock, line: number, endLine: number, base: number): number {
  let end = line + 1;
  let last = line;
  for (; end < endLine; end += 1) {
    if (state.isEmpty(end)) continue;
    if (state.sCount[end]! < base + 4) break;
    last = end;
  }
  return last + 1;
}

/** Tokenizes lines (start, end) as a block indented four columns deeper than `base`. */
function tokenizeIndented(state: StateBlock, start: number, end: number, base: number): void {
  const oldIndent = state.blkIndent;
  state.blkIndent = base + 4;
  state.md.block.tokenize(state, start, end);
  state.blkIndent = oldIndent;
}

function indentedRule(form: 'admonition' | 'tabs') {
  return (state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean => {
    const base = state.sCount[startLine]!;
    if (base - state.blkIndent >= 4) return false;
    if (form === 'admonition') {
      const open = ADMONITION.exec(lineText(state, startLine));
      const kind = open === null ? undefined : kindOf(open[1]!);
      if (open === null || kind === undefined) return false;
      if (silent) return true;
      const end = indentedEnd(state, startLine, endLine, base);
      const title = open[2] === undefined ? defaultTitle(kind, state.env) : open[2].trim();
      pushCallout(state, { kind, title }, startLine, end, () => tokenizeIndented(state, startLine + 1, end, base));
      state.line = end;
      return true;
    }
    if (!TAB.test(lineText(state, startLine))) return false;
    if (silent) return true;
    const env = state.env as BlockEnv;
    const group = (env.tabGroups ?? 0) + 1;
    env.tabGroups = group;
    const oldParent = state.parentType;
    state.parentType = 'blockquote';
    const open = state.push('tabs_open', 'div', 1);
    open.block = true;
    let line = startLine;
    let index = 0;
    for (;;) {
      const label = line < endLine && state.sCount[line] === base ? TAB.exec(lineText(state, line))?.[1] : undefined;
      if (label === undefined) break;
      const end = indentedEnd(state, line, endLine, base);
      const tab = state.push('tab_open', 'div', 1);
      tab.block = true;
      tab.meta = { group, index, label: label.trim() } satisfies TabMeta;
      tab.map = [line, end];
      const oldLineMax = state.lineMax;
      state.lineMax = end;
      tokenizeIndented(state, line + 1, end, base);
      state.lineMax = oldLineMax;
      state.push('tab_close', 'div', -1).block = true;
      index += 1;
      line = end;
      while (line < endLine && state.isEmpty(line)) line += 1;
    }
    state.push('tabs_close', 'div', -1).block = true;
    open.map = [startLine, line];
    state.parentType = oldParent;
    state.line = line;
    return true;
  };
}

const ALERT = /^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*(?:\n|$)/i;

/** `> [!NOTE]` blockquotes become callouts; the marker line is removed from the first paragraph. */
function githubAlerts(state: StateCore): void {
  const tokens = state.tokens;
  for (let i = 0; i < tokens.length; i += 1) {
    const quote = tokens[i]!;
    if (quote.type !== 'blockquote_open' || tokens[i + 1]?.type !== 'paragraph_open') continue;
    const inline = tokens[i + 2]!;
    const marker = ALERT.exec(inline.content);
    if (marker === null) continue;
    const kind = marker[1]!.toLowerCase();
    const close = findClose(tokens, i, 'blockquote_close');
    quote.type = 'callout_open';
    quote.tag = 'div';
    quote.meta = { kind, title: defaultTitle(kind, state.env) } satisfies CalloutMeta;
    tokens[close]!.type = 'callout_close';
    tokens[close]!.tag = 'div';
    inline.content = inline.content.slice(marker[0].length);
    if (inline.content.trim() === '') tokens.splice(i + 1, 3);
  }
}

function findClose(tokens: Token[], openIndex: number, type: string): number {
  const level = tokens[openIndex]!.level;
  for (let j = openIndex + 1; j < tokens.length; j += 1) {
    if (tokens[j]!.type === type && tokens[j]!.level === level) return j;
  }
  return tokens.length - 1;
}
