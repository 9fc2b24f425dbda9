// The text content of a tool result. Many clients hand the model only `content`, and the MCP
// specification asks a tool that answers `structuredContent` to answer it serialized as text too
// (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#structured-content). So the
// text is the tool's one-line summary followed by the structured result as compact JSON, with long
// strings clipped and the whole bounded: lists are paged, so a smaller page fits.

/** A string longer than this is clipped in the text (the structured result keeps all of it). */
const MAX_STRING = 2_000;
/** The text never grows past this many characters. */
const MAX_TEXT = 24_000;

function clipped(value: string): string {
  if (value.length <= MAX_STRING) return value;
  return `${value.slice(0, MAX_STRING)}… [${value.length - MAX_STRING} more characters in structuredContent]`;
}

/** `summary`, then `data` as compact JSON. */
export function resultText(summary: string, data: Record<string, unknown>): string {
  const json = JSON.stringify(data, (_key, value: unknown) => (typeof value === 'string' ? clipped(value) : value));
  const text = `${summary}\n${json}`;
  if (text.length <= MAX_TEXT) return text;
  return `${text.slice(0, MAX_TEXT)}\n… [the result is cut at ${MAX_TEXT} characters; ask for a smaller page_size]`;
}
