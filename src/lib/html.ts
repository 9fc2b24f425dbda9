// Escaping for HTML text and attribute values, and the typed templates of the server-rendered pages
// (forum UI and console). `html` escapes every interpolated value unless it is already `SafeHtml`, so
// the only way to put markup from data on a page is `trustedHtml`, used for bodies sanitized on write.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

const SPECIAL = /[&<>"']/g;

export function escapeHtml(text: string): string {
  // Most values (ids, names, times, numbers) have nothing to escape: a search is cheaper than a replace.
  return text.search(SPECIAL) === -1 ? text : text.replace(SPECIAL, (ch) => ENTITIES[ch] ?? ch);
}

/** XML text has the same five special characters; sitemap.xml uses this. */
export const escapeXml = escapeHtml;

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(String(value as string | number));
}

/** Tagged template: literal parts are markup, interpolations are escaped text (arrays joined). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Markup that is already safe: sanitized post bodies only. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
