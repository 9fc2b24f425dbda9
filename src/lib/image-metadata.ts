// Rewrites uploaded PNG, JPEG, GIF and WebP images without what a camera or editor hides in them
// (EXIF with GPS positions, XMP, IPTC, comments, text chunks) and without bytes after the image's
// end (where polyglot files keep their second payload), keeping the pixels and the colour profile
// byte for byte. A file whose structure does not parse is refused rather than passed on.

export class MalformedImage extends Error {
  constructor(type: string, detail: string) {
    super(`the ${type} image is malformed: ${detail}`);
    this.name = 'MalformedImage';
  }
}

interface CleanImage {
  bytes: Buffer;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Chunks that decode the picture (colour, transparency, animation, density); text and EXIF go. */
const PNG_KEPT = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'iCCP',
  'sBIT',
  'pHYs',
  'bKGD',
  'hIST',
  'acTL',
  'fcTL',
  'fdAT',
]);

function cleanPng(bytes: Buffer): CleanImage {
  const kept: Buffer[] = [PNG_SIGNATURE];
  let offset = 8;
  let width = 0;
  let height = 0;
  for (;;) {
    if (offset + 12 > bytes.length) throw new MalformedImage('PNG', 'it ends before its IEND chunk');
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const end = offset + 12 + length;
    if (end > bytes.length) throw new MalformedImage('PNG', `chunk ${type} runs past the end of the file`);
    if (type === 'IHDR') {
      width = bytes.readUInt32BE(offset + 8);
      height = bytes.readUInt32BE(offset + 12);
    }
    if (PNG_KEPT.has(type)) kept.push(bytes.subarray(offset, end));
    offset = end;
    if (type === 'IEND') break;
  }
  if (width === 0 || height === 0) throw new MalformedImage('PNG', 'it has no IHDR chunk');
  return { bytes: Buffer.concat(kept), width, height };
}

/** APPn segments that decoding needs: JFIF (APP0), the ICC profile (APP2), Adobe's colour transform (APP14). */
function jpegSegmentKept(marker: number, data: Buffer): boolean {
  if (marker === 0xfe) return false;
  if (marker < 0xe0 || marker > 0xef) return true;
  const tag = data.toString('latin1', 0, 12);
  return (
    marker === 0xe0 || (marker === 0xe2 && tag === 'ICC_PROFILE\0') || (marker === 0xee && tag.startsWith('Adobe'))
  );
}

const isSof = (marker: number): boolean =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function cleanJpeg(bytes: Buffer): CleanImage {
  const kept: Buffer[] = [bytes.subarray(0, 2)];
  let offset = 2;
  let width = 0;
  let height = 0;
  let scanStart = -1;
  while (offset < bytes.length) {
    if (bytes[offset] !== 0xff) {
      // Entropy-coded data of a scan; it ends at the next marker other than FF00 and RSTn.
      if (scanStart === -1) throw new MalformedImage('JPEG', `no marker at byte ${offset}`);
      const next = bytes.indexOf(0xff, offset);
      offset = next === -1 ? bytes.length : next;
      continue;
    }
    const marker = bytes[offset + 1];
    if (marker === undefined) throw new MalformedImage('JPEG', 'it ends inside a marker');
    if (marker === 0x00 || marker === 0xff || (marker >= 0xd0 && marker <= 0xd7)) {
      if (scanStart === -1 && marker !== 0xff) throw new MalformedImage('JPEG', 'scan data before the first scan');
      offset += marker === 0xff ? 1 : 2;
      continue;
    }
    if (scanStart !== -1) {
      kept.push(bytes.subarray(scanStart, offset));
      scanStart = -1;
    }
    if (marker === 0xd9) {
      kept.push(bytes.subarray(offset, offset + 2));
      if (width === 0 || height === 0) throw new MalformedImage('JPEG', 'it has no frame header');
      return { bytes: Buffer.concat(kept), width, height };
    }
    if (offset + 4 > bytes.length) throw new MalformedImage('JPEG', 'it ends inside a segment header');
    const length = bytes.readUInt16BE(offset + 2);
    const end = offset + 2 + length;
    if (length < 2 || end > bytes.length)
      throw new MalformedImage('JPEG', `segment FF${marker.toString(16).toUpperCase()} runs past the end of the file`);
    const data = bytes.subarray(offset + 4, end);
    if (isSof(marker) && data.length >= 5) {
      height = data.readUInt16BE(1);
      width = data.readUInt16BE(3);
    }
    if (jpegSegmentKept(marker, data)) kept.push(bytes.subarray(offset, end));
    offset = end;
    if (marker === 0xda) scanStart = offset;
  }
  throw new MalformedImage('JPEG', 'it has no end-of-image marker');
}

/** GIF extensions kept: graphic control (timing, transparency), plain text, and the looping application block. */
function gifExtensionKept(label: number, bytes: Buffer, offset: number): boolean {
  if (label === 0xf9 || label === 0x01) return true;
  if (label !== 0xff) return false;
  const id = bytes.toString('latin1', offset + 3, offset + 14);
  return id === 'NETSCAPE2.0' || id === 'ANIMEXTS1.0';
}

function skipSubBlocks(bytes: Buffer, offset: number): number {
  for (;;) {
    const size = bytes[offset];
    if (size === undefined) throw new MalformedImage('GIF', 'it ends inside a data block');
    offset += 1 + size;
    if (size === 0) return offset;
  }
}

function cleanGif(bytes: Buffer): CleanImage {
  if (bytes.length < 13) throw new MalformedImage('GIF', 'it is shorter than its header');
  const width = bytes.readUInt16LE(6);
  const height = bytes.readUInt16LE(8);
  const packed = bytes[10]!;
  let offset = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
  const kept: Buffer[] = [bytes.subarray(0, offset)];
  for (;;) {
    const introducer = bytes[offset];
    if (introducer === 0x3b) {
      kept.push(bytes.subarray(offset, offset + 1));
      break;
    }
    const start = offset;
    if (introducer === 0x21) {
      const label = bytes[offset + 1];
      if (label === undefined) throw new MalformedImage('GIF', 'it ends inside an extension');
      offset = skipSubBlocks(bytes, offset + 2);
      if (gifExtensionKept(label, bytes, start)) kept.push(bytes.subarray(start, offset));
    } else if (introducer === 0x2c) {
      const local = bytes[offset + 9];
      if (local === undefined) throw new MalformedImage('GIF', 'it ends inside an image descriptor');
      offset += 10 + (local & 0x80 ? 3 * 2 ** ((local & 0x07) + 1) : 0) + 1;
      offset = skipSubBlocks(bytes, offset);
      kept.push(bytes.subarray(start, offset));
    } else
      throw new MalformedImage(
        'GIF',
        introducer === undefined ? 'it has no trailer' : `unknown block 0x${introducer.toString(16)} at byte ${offset}`,
      );
  }
  if (width === 0 || height === 0) throw new MalformedImage('GIF', 'its screen size is zero');
  return { bytes: Buffer.concat(kept), width, height };
}

const WEBP_DROPPED = new Set(['EXIF', 'XMP ']);

function webpSize(type: string, data: Buffer): { width: number; height: number } | undefined {
  if (type === 'VP8X' && data.length >= 10)
    return { width: data.readUIntLE(4, 3) + 1, height: data.readUIntLE(7, 3) + 1 };
  if (type === 'VP8L' && data.length >= 5 && data[0] === 0x2f) {
    const bits = data.readUInt32LE(1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (type === 'VP8 ' && data.length >= 10)
    return { width: data.readUInt16LE(6) & 0x3fff, height: data.readUInt16LE(8) & 0x3fff };
  return undefined;
}

function cleanWebp(bytes: Buffer): CleanImage {
  if (bytes.length < 12) throw new MalformedImage('WebP', 'it is shorter than its header');
  const riffEnd = 8 + bytes.readUInt32LE(4);
  if (riffEnd > bytes.length) throw new MalformedImage('WebP', 'its RIFF size runs past the end of the file');
  const kept: Buffer[] = [];
  let size: { width: number; height: number } | undefined;
  let offset = 12;
  while (offset < riffEnd) {
    if (offset + 8 > riffEnd) throw new MalformedImage('WebP', 'it ends inside a chunk header');
    const type = bytes.toString('latin1', offset, offset + 4);
    const length = bytes.readUInt32LE(offset + 4);
    const end = offset + 8 + length + (length % 2);
    if (offset + 8 + length > riffEnd)
      throw new MalformedImage('WebP', `chunk ${type.trim()} runs past the end of the file`);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    size ??= webpSize(type, data);
    if (!WEBP_DROPPED.has(type)) {
      const chunk = Buffer.from(bytes.subarray(offset, Math.min(end, riffEnd)));
      // VP8X announces EXIF (bit 3) and XMP (bit 2); they are gone.
      if (type === 'VP8X') chunk[8] = chunk[8]! & ~0x0c;
      kept.push(chunk);
    }
    offset = end;
  }
  if (size === undefined || size.width === 0 || size.height === 0)
    throw new MalformedImage('WebP', 'it has no image chunk');
  const body = Buffer.concat(kept);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(4 + body.length, 4);
  header.write('WEBP', 8, 'latin1');
  return { bytes: Buffer.concat([header, body]), ...size };
}

const CLEANERS: Record<string, (bytes: Buffer) => CleanImage> = {
  'image/png': cleanPng,
  'image/jpeg': cleanJpeg,
  'image/gif': cleanGif,
  'image/webp': cleanWebp,
};

/** The image rewritten without metadata and trailing bytes, with its size; throws MalformedImage. */
export function stripImageMetadata(type: string, bytes: Buffer): CleanImage {
  const clean = CLEANERS[type];
  if (!clean) throw new Error(`no metadata cleaner for ${type}`);
  return clean(bytes);
}
