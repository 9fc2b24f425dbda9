// HTML mail as agents see it on a desk ticket page (docs/decisions/0128-helpdesk-html-mail-view.md):
// the mail's HTML body sanitized to the safe subset Blume shows from outside (src/lib/html-subset.ts),
// stricter for mail: no id, class, role, data-* or style attribute (nothing can take on the desk's
// own styles or ids, and the page's CSP allows no inline style anyway), no form controls or media
// sources. `cid:` images point at the message's own stored parts; remote images lose their address
// until the agent asks for them, so opening a ticket tells no sender it was read.
import sanitizeHtml from 'sanitize-html';
import { DROPPED_WHOLE, SAFE_HTML, schemeAllowed, URL_ATTRIBUTES } from '../../lib/html-subset.js';
import { MAX_HTML_CHARS } from './html-text.js';
import { contentIdOf } from './message.js';

/** Tags of the safe subset a mail does not keep: form controls, and sources of media fetched from elsewhere. */
const NOT_IN_MAIL = new Set(['input', 'label', 'source']);
/** Attributes of the subset a mail does not keep: they name or fetch things beyond the message. */
const NOT_ON_MAIL = new Set(['srcset', 'name', 'loading', 'style']);
/** The common attributes a mail keeps (of id, class, title, lang, dir, role, aria-*, data-*). */
const MAIL_COMMON = ['title', 'lang', 'dir'];

const MAIL_TAGS = Object.keys(SAFE_HTML).filter((tag) => !NOT_IN_MAIL.has(tag));
const MAIL_ATTRIBUTES = Object.fromEntries(
  MAIL_TAGS.map((tag) => [
    tag,
    [...SAFE_HTML[tag]!.filter((name) => !NOT_ON_MAIL.has(name)), ...MAIL_COMMON, ...(tag === 'a' ? ['target'] : [])],
  ]),
);
/** Raster images only: what an inline part may be to show as `<img>`. */
const INLINE_IMAGE_TYPES = /^image\/(png|gif|jpeg|webp|avif|bmp)\s*(;|$)/i;

interface MailPart {
  contentId: string;
  contentType: string;
  /** Where the desk page loads the part from. */
  url: string;
}

export interface MailHtmlView {
  html: string;
  /** Remote images whose address was left out (0 when they were shown or there are none). */
  blockedImages: number;
}

/** The sanitized HTML of a mail body; `parts` are its stored parts by Content-ID; remote images only when asked. */
export function mailHtmlView(source: string, parts: readonly MailPart[], remoteImages: boolean): MailHtmlView {
  const html = source.length > MAX_HTML_CHARS ? source.slice(0, MAX_HTML_CHARS) : source;
  const byContentId = new Map(
    parts
      .filter((part) => INLINE_IMAGE_TYPES.test(part.contentType))
      .map((part) => [part.contentId.toLowerCase(), part.url]),
  );
  let blockedImages = 0;
  const sanitized = sanitizeHtml(html, {
    allowedTags: MAIL_TAGS,
    allowedAttributes: MAIL_ATTRIBUTES,
    allowedStyles: {},
    // The part URLs the transform writes are paths of this origin; every other scheme is checked below.
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    allowedSchemesByTag: { img: ['http', 'https', 'data'] },
    allowedSchemesAppliedToAttributes: URL_ATTRIBUTES,
    allowProtocolRelative: false,
    nonTextTags: [...DROPPED_WHOLE, 'head', 'title'],
    disallowedTagsMode: 'discard',
    transformTags: {
      // Links leave for where they say, in a new tab, never to a path of the desk's own origin.
      a: (tagName, { href = '', ...rest }) => ({
        tagName,
        attribs: {
          ...rest,
          ...(/^\s*(https?|mailto|tel):/i.test(href) ? { href } : {}),
          rel: 'noopener noreferrer nofollow',
          target: '_blank',
        },
      }),
      img: (tagName, attribs) => {
        const { src = '', ...rest } = attribs;
        const cid = /^\s*cid:/i.test(src) ? contentIdOf(src) : null;
        if (cid !== null) {
          const url = byContentId.get(cid.toLowerCase());
          return { tagName, attribs: url ? { ...rest, src: url } : rest };
        }
        if (/^\s*https?:/i.test(src)) {
          if (remoteImages) return { tagName, attribs };
          blockedImages++;
          return { tagName, attribs: { ...rest, alt: rest.alt || '(remote image)' } };
        }
        return { tagName, attribs: schemeAllowed('img', src) && /^\s*data:/i.test(src) ? attribs : rest };
      },
    },
  });
  return { html: sanitized, blockedImages };
}
