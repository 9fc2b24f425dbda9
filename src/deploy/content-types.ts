// Content types by file extension, and which of them are worth precompressing. A small table rather
// than a package: a site serves a known, short list of web formats.

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  cjs: 'text/javascript; charset=utf-8',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  yaml: 'text/yaml; charset=utf-8',
  yml: 'text/yaml; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  ics: 'text/calendar; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  wasm: 'application/wasm',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  vtt: 'text/vtt; charset=utf-8',
};

const DEFAULT_TYPE = 'application/octet-stream';

export function contentTypeFor(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return DEFAULT_TYPE;
  return TYPES[path.slice(dot + 1).toLowerCase()] ?? DEFAULT_TYPE;
}

/** Text-like types shrink well; images, fonts (woff2 is already brotli) and media do not. */
export function isCompressible(contentType: string): boolean {
  const type = contentType.split(';', 1)[0]!;
  return (
    type.startsWith('text/') ||
    type === 'image/svg+xml' ||
    type === 'image/x-icon' ||
    type === 'image/bmp' ||
    type === 'application/wasm' ||
    type === 'font/ttf' ||
    type === 'font/otf' ||
    type === 'application/vnd.ms-fontobject' ||
    /^application\/(?:[a-z.+-]*\+)?(?:json|xml)$/.test(type)
  );
}

export function isHtml(contentType: string): boolean {
  return contentType.startsWith('text/html');
}

/**
 * A file name carrying a content hash (`app.3f9a1c2b.js`, `index-BfG7x2kQ.js`, `main.a1b2c3d4e5.css`)
 * never changes content under the same name, so browsers may cache it forever.
 */
export function isFingerprinted(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return (
    /[.-](?=[A-Za-z0-9_]*\d)(?=[A-Za-z0-9_]*[a-zA-Z])[A-Za-z0-9_]{8,}\.[a-z0-9]+$/.test(name) ||
    /[.-][0-9a-f]{8,}\.[a-z0-9]+$/.test(name)
  );
}
