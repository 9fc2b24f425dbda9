// The safe subset of raw HTML in docs pages. Authors' HTML passes through when it uses the tags,
// attributes and URL schemes below; anything else is dropped (a dropped element keeps its text,
// except script, style and the like, which go whole) and reported once per page as a build warning.
// Never allowed: script, style, frames, objects, forms, event handler attributes (on*), inline
// styles, and URLs whose scheme could run code (javascript:, vbscript:, data: outside images).
// The same sanitizer runs over the rendered page, so Blume's own markup must fit the subset too.
import type SanitizeHtml from 'sanitize-html';
import type { BuildWarning } from './errors.js';

const COMMON_ATTRIBUTES = ['id', 'class', 'title', 'lang', 'dir', 'role', 'aria-*', 'data-*'];
const ALIGNABLE = ['align'];

/** Tag -> its own allowed attributes (besides the common ones). */
const ALLOWED: Record<string, string[]> = {
  a: ['href', 'name', 'rel', 'hreflang'],
  abbr: [],
  article: [],
  aside: [],
  b: [],
  bdi: [],
  bdo: [],
  blockquote: ['cite'],
  br: [],
  caption: ALIGNABLE,
  cite: [],
  code: [],
  col: ['span'],
  colgroup: ['span'],
  dd: [],
  del: ['cite', 'datetime'],
  details: ['open'],
  dfn: [],
  div: ALIGNABLE,
  dl: [],
  dt: [],
  em: [],
  figcaption: [],
  figure: [],
  footer: [],
  h1: ALIGNABLE,
  h2: ALIGNABLE,
  h3: ALIGNABLE,
  h4: ALIGNABLE,
  h5: ALIGNABLE,
  h6: ALIGNABLE,
  header: [],
  hr: [],
  i: [],
  img: ['src', 'srcset', 'alt', 'width', 'height', 'loading', 'align'],
  input: ['type', 'checked', 'disabled', 'name'],
  ins: ['cite', 'datetime'],
  kbd: [],
  label: ['for'],
  li: ['value'],
  mark: [],
  ol: ['start', 'type', 'reversed'],
  p: ALIGNABLE,
  picture: [],
  pre: [],
  q: ['cite'],
  rp: [],
  rt: [],
  ruby: [],
  s: [],
  samp: [],
  section: [],
  small: [],
  source: ['srcset', 'type', 'media', 'width', 'height'],
  span: [],
  strong: [],
  sub: [],
  summary: [],
  sup: [],
  table: ALIGNABLE,
  tbody: [],
  td: ['colspan', 'rowspan', 'align', 'style'],
  tfoot: [],
  th: ['colspan', 'rowspan', 'align', 'scope', 'style'],
  thead: [],
  time: ['datetime'],
  tr: [],
  u: [],
  ul: [],
  var: [],
  wbr: [],
};

const URL_ATTRIBUTES = ['href', 'src', 'cite', 'srcset'];
const SCHEMES = ['http', 'https', 'mailto', 'tel'];

/** Elements dropped together with their content: their text is code or markup, not prose. */
const DROPPED_WHOLE = [
  'script',
  'style',
  'textarea',
  'option',
  'noscript',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'template',
  'svg',
  'math',
];

function attributeAllowed(tag: string, name: string): boolean {
  const own = ALLOWED[tag] ?? [];
  const matches = (pattern: string): boolean =>
    pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
  return own.some(matches) || COMMON_ATTRIBUTES.some(matches);
}

function schemeAllowed(tag: string, value: string): boolean {
  // eslint-disable-next-line no-control-regex -- browsers ignore control characters inside a scheme
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(value.replace(/[\u0000-\u001f\s]+/g, ''))?.[1]?.toLowerCase();
  if (scheme === undefined) return !/^\s*\/\//.test(value);
  return (
    SCHEMES.includes(scheme) ||
    (tag === 'img' && scheme === 'data' && /^\s*data:image\/(png|gif|jpeg|webp|avif);/i.test(value))
  );
}

/** What the sanitizer will drop from one opening tag, as warning messages. */
function droppedFrom(tag: string, attributes: Record<string, string>): string[] {
  if (!(tag in ALLOWED)) return [`<${tag}> is not in the allowed HTML subset and was removed`];
  const messages: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!attributeAllowed(tag, name)) messages.push(`attribute "${name}" on <${tag}> is not allowed and was removed`);
    else if (URL_ATTRIBUTES.includes(name) && !schemeAllowed(tag, value))
      messages.push(
        `a ${/^\s*([a-z][a-z0-9+.-]*):/i.exec(value)?.[1] ?? 'protocol-relative'} URL in <${tag} ${name}> was removed`,
      );
  }
  return messages;
}

interface SanitizeContext {
  file: string;
  warnings: BuildWarning[];
  /** Keep the first <h1> as the page title; every other <h1> becomes an <h2> (one H1 per page). */
  keepFirstH1: boolean;
}

let sanitizeHtml: typeof SanitizeHtml | undefined;

/**
 * Sanitizes a rendered page body to the safe subset, warning once per page for each kind of drop.
 * The sanitizer is loaded for the first page with raw HTML: loading it costs a thread about 0.1 s.
 */
export async function sanitizePageHtml(html: string, context: SanitizeContext): Promise<string> {
  sanitizeHtml ??= (await import('sanitize-html')).default;
  const reported = new Set<string>();
  let h1Seen = !context.keepFirstH1;
  return sanitizeHtml(html, {
    allowedTags: Object.keys(ALLOWED),
    allowedAttributes: Object.fromEntries(
      Object.entries(ALLOWED).map(([tag, own]) => [tag, [...own, ...COMMON_ATTRIBUTES]]),
    ),
    // Markdown tables align columns with style="text-align:..."; no other style survives.
    allowedStyles: { td: { 'text-align': [/^(left|right|center)$/] }, th: { 'text-align': [/^(left|right|center)$/] } },
    allowedSchemes: SCHEMES,
    allowedSchemesByTag: { img: [...SCHEMES, 'data'] },
    allowedSchemesAppliedToAttributes: URL_ATTRIBUTES,
    allowProtocolRelative: false,
    nonTextTags: DROPPED_WHOLE,
    disallowedTagsMode: 'discard',
    onOpenTag: (tag, attributes) => {
      for (const message of droppedFrom(tag, attributes)) {
        if (reported.has(message)) continue;
        reported.add(message);
        context.warnings.push({ file: context.file, message });
      }
    },
    transformTags: {
      h1: (tagName, attribs) => {
        if (!h1Seen) {
          h1Seen = true;
          return { tagName, attribs };
        }
        return { tagName: 'h2', attribs };
      },
    },
  });
}
