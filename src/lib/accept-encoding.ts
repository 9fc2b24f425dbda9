// Content negotiation of `Accept-Encoding` (RFC 9110 section 12.5.3), shared by the static edge and
// the compression of server-rendered pages.

/** Whether the header accepts `coding` (named, and not with `q=0`). */
export function acceptsEncoding(header: string | undefined, coding: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== coding) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}
