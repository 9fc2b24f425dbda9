// Post bodies: Markdown rendered once on write, then sanitized. Raw HTML in the source is shown as
// text (markdown-it `html: false`), and the sanitizer is the second wall: only an allowlist of
// tags, attributes and URL schemes survives, and links are marked as user content.
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { highlightCode } from '../lib/code-highlight.js';

/** An @mention: a member's name after a space or the start, not inside an address (`cy@example.test`). */
export const MENTION = /(?:^|[^\w@.-])@([A-Za-z0-9_.-]{2,40})/g;

/** The name a mention names: trailing dots and hyphens are the sentence's (`@dee.`). */
export const mentionName = (raw: string): string => raw.replace(/[.-]+$/, '');

/**
 * Mentions become links to the member's profile (`/u/<name>`), outside links and code. A name
 * that is no member's leads to the profile page's "No member" answer, as on Discourse.
 */
function linkMentions(md: MarkdownIt): void {
  md.core.ruler.after('linkify', 'mentions', (state) => {
    for (const block of state.tokens) {
      if (block.type !== 'inline' || !block.children) continue;
      const children: typeof block.children = [];
      let inLink = 0;
      for (const token of block.children) {
        if (token.type === 'link_open') inLink += 1;
        if (token.type === 'link_close') inLink -= 1;
        if (token.type !== 'text' || inLink > 0 || !token.content.includes('@')) {
          children.push(token);
          continue;
        }
        let at = 0;
        for (const match of token.content.matchAll(MENTION)) {
          const name = mentionName(match[1]!);
          const start = match.index + match[0].indexOf('@');
          const text = new state.Token('text', '', 0);
          text.content = token.content.slice(at, start);
          const open = new state.Token('link_open', 'a', 1);
          open.attrs = [
            ['href', `/u/${encodeURIComponent(name)}`],
            ['class', 'mention'],
          ];
          const label = new state.Token('text', '', 0);
          label.content = `@${name}`;
          children.push(text, open, label, new state.Token('link_close', 'a', -1));
          at = start + 1 + name.length;
        }
        const rest = new state.Token('text', '', 0);
        rest.content = token.content.slice(at);
        children.push(rest);
      }
      block.children = children;
    }
  });
}

/**
 * What every post renderer shares: raw HTML shown as text, and fenced code with a known language
 * highlighted on write (as docs builds do), so the stored HTML carries it and pages need no script.
 */
const BASE = {
  html: false,
  typographer: false,
  highlight: (code: string, lang: string) => highlightCode(code, lang) ?? '',
};

/**
 * Code blocks and tables scroll sideways inside a post on a narrow screen; a keyboard reaches a
 * scrolling region only if something in it takes focus, so their `code` and `table` do.
 */
function focusableScrollers(md: MarkdownIt): void {
  md.core.ruler.push('scroll_regions', (state) => {
    for (const token of state.tokens)
      if (token.type === 'fence' || token.type === 'code_block' || token.type === 'table_open')
        token.attrSet('tabindex', '0');
  });
  // The default renderer of indented code drops the token's attributes.
  md.renderer.rules.code_block = (tokens, index) =>
    `<pre><code tabindex="0">${md.utils.escapeHtml(tokens[index]!.content)}</code></pre>\n`;
}

const markdown = new MarkdownIt({ ...BASE, linkify: true, breaks: false }).use(linkMentions).use(focusableScrollers);

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'pre',
    'code',
    'em',
    'strong',
    's',
    'del',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'span',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'class'],
    img: ['src', 'alt', 'title'],
    code: ['class', 'tabindex'],
    table: ['tabindex'],
    ol: ['start'],
    th: ['style'],
    td: ['style'],
    span: ['class'],
  },
  // highlight.js marks tokens `hljs-keyword`, some with a second word (`hljs-title function_`).
  allowedClasses: { code: [/^language-[A-Za-z0-9_+-]+$/], a: ['mention'], span: [/^hljs-[a-z_-]+$/, /^[a-z]+_+$/] },
  allowedStyles: { '*': { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow ugc noopener noreferrer' } }),
  },
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Text of sanitized HTML: tags dropped, the few entities our renderer emits decoded. */
function htmlToText(html: string): string {
  return html
    .replace(/<(br|\/p|\/h[1-6]|\/li|\/pre|\/blockquote|\/tr)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface RenderedBody {
  html: string;
  text: string;
}

/**
 * New members' posts (trust level 0): links become their text, images their description, and bare
 * URLs stay text, until the member is trusted.
 */
const heldLinks = new MarkdownIt({ ...BASE, linkify: false, breaks: false }).use(focusableScrollers);
heldLinks.renderer.rules.link_open = () => '';
heldLinks.renderer.rules.link_close = () => '';
heldLinks.renderer.rules.image = (tokens, index, options, env, self) =>
  heldLinks.utils.escapeHtml(self.renderInlineAsText(tokens[index]!.children ?? [], options, env));

/** Text that came as e-mail: every line break of the mail is a line break on the page. */
const mailText = new MarkdownIt({ ...BASE, linkify: true, breaks: true }).use(linkMentions).use(focusableScrollers);

/**
 * Renders and sanitizes a body; `links: false` holds links and images (shown as their text), and
 * `lineBreaks` keeps every line break (mail text, whose lines are not Markdown paragraphs).
 */
export function renderBody(source: string, options: { links?: boolean; lineBreaks?: boolean } = {}): RenderedBody {
  const renderer = options.links === false ? heldLinks : options.lineBreaks ? mailText : markdown;
  const html = sanitizeHtml(renderer.render(source), SANITIZE).trim();
  return { html, text: htmlToText(html) };
}

/**
 * Titles are plain text, stored as typed: "Why does <div> not center?" keeps its `<div>`. Only
 * control characters and runs of white space become one space, so a title is one line (safe in a
 * mail subject). Every output escapes it for its own syntax (HTML, XML, mail HTML).
 */
export function plainTitle(title: string): string {
  return (
    title
      .normalize('NFC')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** A URL slug from a title: lower-case ASCII words joined by hyphens. */
export function slugify(text: string, fallback = 'topic'): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || fallback;
}
