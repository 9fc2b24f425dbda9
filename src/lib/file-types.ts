// Uploaded files are typed by their own bytes, never by their name or declared type alone: the
// name's extension and the declared type must agree with what the bytes are, or the upload is
// refused (a script named `.png` fails here). SVG is never accepted: it can carry script.
// Used by the Content API's media and the forum's uploads; each caller says which types it takes.

export interface FileKind {
  type: string;
  extensions: string[];
  /** Served inline (`image`) or as a download (`file`). */
  kind: 'image' | 'file';
  matches(bytes: Buffer): boolean;
}

const ascii = (bytes: Buffer, start: number, text: string): boolean =>
  bytes.subarray(start, start + text.length).toString('latin1') === text;

/** Plain text: valid UTF-8 without NUL or other control bytes besides tab, newlines and form feed. */
function isPlainText(bytes: Buffer): boolean {
  // eslint-disable-next-line no-control-regex -- control bytes are what marks a file as not text
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(bytes.toString('latin1'))) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export const FILE_KINDS = {
  png: {
    type: 'image/png',
    extensions: ['png'],
    kind: 'image',
    matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  jpeg: {
    type: 'image/jpeg',
    extensions: ['jpg', 'jpeg'],
    kind: 'image',
    matches: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  },
  gif: {
    type: 'image/gif',
    extensions: ['gif'],
    kind: 'image',
    matches: (b) => ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'),
  },
  webp: {
    type: 'image/webp',
    extensions: ['webp'],
    kind: 'image',
    matches: (b) => ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP'),
  },
  avif: {
    type: 'image/avif',
    extensions: ['avif'],
    kind: 'image',
    matches: (b) => ascii(b, 4, 'ftyp') && (ascii(b, 8, 'avif') || ascii(b, 8, 'avis')),
  },
  pdf: { type: 'application/pdf', extensions: ['pdf'], kind: 'file', matches: (b) => ascii(b, 0, '%PDF-') },
  zip: {
    type: 'application/zip',
    extensions: ['zip'],
    kind: 'file',
    matches: (b) => ascii(b, 0, 'PK\u0003\u0004') || ascii(b, 0, 'PK\u0005\u0006'),
  },
  text: { type: 'text/plain', extensions: ['txt', 'log', 'csv', 'md'], kind: 'file', matches: isPlainText },
} as const satisfies Record<string, FileKind>;

/** The file name as served: its last path segment, reduced to safe characters. */
export function cleanFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(-200);
  return clean === '' ? 'file' : clean;
}

/**
 * The kind of an upload among `accepted` (checked in order; plain text last, as any other kind's
 * bytes may also pass as text), or why it is refused, in words for the uploader.
 */
export function sniffFileKind(
  filename: string,
  declared: string,
  bytes: Buffer,
  accepted: readonly FileKind[],
): { kind: FileKind } | { refused: string } {
  const extension = filename.includes('.') ? filename.split('.').pop()!.toLowerCase() : '';
  if (extension === 'svg' || declared === 'image/svg+xml')
    return { refused: 'SVG files are refused: they can carry scripts. Upload a PNG or WebP instead.' };
  const kind = accepted.find((k) => k.matches(bytes));
  if (!kind) return { refused: `The bytes of "${filename}" are not a ${accepted.map((k) => k.type).join(', ')} file.` };
  if (!kind.extensions.includes(extension))
    return { refused: `"${filename}" holds ${kind.type}; name it .${kind.extensions[0]}.` };
  // Browsers send text files under many types; for the rest the declared type must be the real one.
  const declaredOk =
    declared === kind.type ||
    declared === 'application/octet-stream' ||
    (kind.type === 'text/plain' && declared.startsWith('text/'));
  if (!declaredOk) return { refused: `"${filename}" was sent as ${declared} but holds ${kind.type}.` };
  return { kind };
}
