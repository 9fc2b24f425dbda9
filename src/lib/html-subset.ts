// The safe subset of HTML that content from outside may keep when Blume shows it: raw HTML in docs
// pages (src/deploy/build/html-policy.ts, decision 0065) and HTML mail shown to help desk agents
// (src/helpdesk/mail/html-view.ts). One table of tags and their attributes, the URL schemes that
// cannot run code, and the elements dropped together with their content.
export const COMMON_ATTRIBUTES = ['id', 'class', 'title', 'lang', 'dir', 'role', 'aria-*', 'data-*'];
const ALIGNABLE = ['align'];

/** Tag -> its own allowed attributes (besides the common ones). */
export const SAFE_HTML: Record<string, string[]> = {
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

export const URL_ATTRIBUTES = ['href', 'src', 'cite', 'srcset'];
export const SCHEMES = ['http', 'https', 'mailto', 'tel'];

/** Elements dropped together with their content: their text is code or markup, not prose. */
export const DROPPED_WHOLE = [
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

export function attributeAllowed(tag: string, name: string): boolean {
  const own = SAFE_HTML[tag] ?? [];
  const matches = (pattern: string): boolean =>
    pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
  return own.some(matches) || COMMON_ATTRIBUTES.some(matches);
}

export function schemeAllowed(tag: string, value: string): boolean {
  // eslint-disable-next-line no-control-regex -- browsers ignore control characters inside a scheme
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(value.replace(/[\u0000-\u001f\s]+/g, ''))?.[1]?.toLowerCase();
  if (scheme === undefined) return !/^\s*\/\//.test(value);
  return (
    SCHEMES.includes(scheme) ||
    (tag === 'img' && scheme === 'data' && /^\s*data:image\/(png|gif|jpeg|webp|avif);/i.test(value))
  );
}
