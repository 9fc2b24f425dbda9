// Escaping for HTML text and attribute values. Every string that reaches a generated page from user
// content goes through one of these.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/** XML text has the same five special characters; sitemap.xml uses this. */
export const escapeXml = escapeHtml;
