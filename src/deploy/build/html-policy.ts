// The safe subset of raw HTML in docs pages. Authors' HTML passes through when it uses the tags,
// attributes and URL schemes below; anything else is dropped (a dropped element keeps its text,
// except script, style and the like, which go whole) and reported once per page as a build warning.
// Never allowed: script, style, frames, objects, forms, event handler attributes (on*), inline
// styles, and URLs whose scheme could run code (javascript:, vbscript:, data: outside images).
// The same sanitizer runs over the rendered page, so Blume's own markup must fit the subset too.
import type SanitizeHtml from 'sanitize-html';
import type { BuildWarning } from './errors.js';
import {
  attributeAllowed,
  COMMON_ATTRIBUTES,
  DROPPED_WHOLE,
  SAFE_HTML as ALLOWED,
  schemeAllowed,
  SCHEMES,
  URL_ATTRIBUTES,
} from '../../lib/html-subset.js';

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
