// The Content-Disposition of a file sent back under the name its sender gave it (RFC 6266): an
// ASCII `filename` every client reads, and `filename*` (RFC 8187) with the name in UTF-8 when the
// ASCII form had to change it. Path separators and control characters never reach either form, so
// no client is offered a name that climbs out of its download folder.

/** Characters RFC 8187 lets through unencoded in `filename*` (attr-char). */
const ATTR_CHAR = /[A-Za-z0-9!#$&+.^_`|~-]/;

function encodeExtValue(name: string): string {
  let out = '';
  for (const char of name) {
    if (ATTR_CHAR.test(char)) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The name as offered for saving: no path separators, no control characters, never empty. */
export function downloadName(filename: string): string {
  const name = filename
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
    .replace(/[/\\]/g, '_')
    .trim()
    .replace(/^\.+/, '');
  return name === '' ? 'attachment' : name;
}

/** `attachment` or `inline`, with the file name in its RFC 6266 forms. */
export function contentDisposition(kind: 'attachment' | 'inline', filename: string): string {
  const name = downloadName(filename);
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["%]/g, '_');
  const header = `${kind}; filename="${ascii}"`;
  return ascii === name ? header : `${header}; filename*=UTF-8''${encodeExtValue(name)}`;
}
