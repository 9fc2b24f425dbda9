// Images made by Chromium's own encoders, given the metadata cameras and editors write, cleaned,
// then decoded again by Chromium: the metadata and trailing bytes are gone, the pixels are the same.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, skipWithoutChromium } from '../../test/helpers/browser.js';
import { MalformedImage, stripImageMetadata } from './image-metadata.js';
import { pngChunk } from '../../test/helpers/images.js';

const SECRET = 'GPS 48.8584N 2.2945E';
const TRAILER = Buffer.from('<script>alert("polyglot")</script>');

/** tEXt and eXIf chunks before the image data, and a script after IEND. */
function withPngMetadata(png: Buffer): Buffer {
  const afterHeader = 8 + 25;
  return Buffer.concat([
    png.subarray(0, afterHeader),
    pngChunk('tEXt', Buffer.from(`Comment\0${SECRET}`)),
    pngChunk('eXIf', Buffer.from(`MM\0*${SECRET}`)),
    png.subarray(afterHeader),
    TRAILER,
  ]);
}

/** An APP1 Exif segment and a comment after SOI, and a script after EOI. */
function withJpegMetadata(jpeg: Buffer): Buffer {
  const segment = (marker: number, data: Buffer): Buffer => {
    const head = Buffer.from([0xff, marker, 0, 0]);
    head.writeUInt16BE(data.length + 2, 2);
    return Buffer.concat([head, data]);
  };
  return Buffer.concat([
    jpeg.subarray(0, 2),
    segment(0xe1, Buffer.from(`Exif\0\0${SECRET}`)),
    segment(0xfe, Buffer.from(SECRET)),
    jpeg.subarray(2),
    TRAILER,
  ]);
}

/** EXIF and XMP chunks inside the RIFF container (and a script after it). */
function withWebpMetadata(webp: Buffer): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'latin1');
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const body = Buffer.concat([
    webp.subarray(12),
    chunk('EXIF', Buffer.from(SECRET)),
    chunk('XMP ', Buffer.from(`<x>${SECRET}</x>`)),
  ]);
  const header = Buffer.from(webp.subarray(0, 12));
  header.writeUInt32LE(4 + body.length, 4);
  return Buffer.concat([header, body, TRAILER]);
}

describe('stripping image metadata', { skip: skipWithoutChromium }, () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
  });
  after(() => browser?.close());

  /** A 40x30 picture with a gradient, encoded by Chromium as `type`. */
  const encode = async (type: string): Promise<Buffer> => {
    const base64 = await page.evaluate(async (mime) => {
      const canvas = new OffscreenCanvas(40, 30);
      const context = canvas.getContext('2d')!;
      for (let x = 0; x < 40; x += 1) {
        for (let y = 0; y < 30; y += 1) {
          context.fillStyle = `rgb(${x * 6},${y * 8},128)`;
          context.fillRect(x, y, 1, 1);
        }
      }
      const blob = await canvas.convertToBlob({ type: mime, quality: 1 });
      const bytes = new Uint8Array(await blob.arrayBuffer());
      let text = '';
      for (const byte of bytes) text += String.fromCharCode(byte);
      return btoa(text);
    }, type);
    return Buffer.from(base64, 'base64');
  };
  /** The decoded RGBA pixels, or the decoder's error. */
  const decode = (bytes: Buffer, type: string): Promise<number[] | string> =>
    page.evaluate(
      async ({ base64, mime }) => {
        try {
          const blob = new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], { type: mime });
          const bitmap = await createImageBitmap(blob);
          const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
          const context = canvas.getContext('2d')!;
          context.drawImage(bitmap, 0, 0);
          return [...context.getImageData(0, 0, bitmap.width, bitmap.height).data];
        } catch (error) {
          return String(error);
        }
      },
      { base64: bytes.toString('base64'), mime: type },
    );

  for (const [type, addMetadata] of [
    ['image/png', withPngMetadata],
    ['image/jpeg', withJpegMetadata],
    ['image/webp', withWebpMetadata],
  ] as const) {
    it(`${type}: drops the metadata and the bytes after the image, keeps every pixel`, async () => {
      const original = await encode(type);
      const dirty = addMetadata(original);
      assert.ok(dirty.includes(SECRET));
      const clean = stripImageMetadata(type, dirty);
      assert.equal(clean.width, 40);
      assert.equal(clean.height, 30);
      assert.ok(!clean.bytes.includes(SECRET), 'the metadata is gone');
      assert.ok(!clean.bytes.includes(TRAILER), 'the trailing payload is gone');
      const pixels = await decode(original, type);
      assert.ok(Array.isArray(pixels) && pixels.length === 40 * 30 * 4, String(pixels));
      assert.deepEqual(await decode(clean.bytes, type), pixels);
      // Cleaning is idempotent: a clean file comes out as it went in.
      assert.ok(stripImageMetadata(type, clean.bytes).bytes.equals(clean.bytes));
    });
  }

  it('image/gif: drops comments and application blocks other than looping, keeps the picture', async () => {
    // A 2x1 GIF89a: global palette of 2 colours, a comment, an unknown application block, one image.
    const gif = Buffer.concat([
      Buffer.from('GIF89a', 'latin1'),
      Buffer.from([2, 0, 1, 0, 0x80, 0, 0]),
      Buffer.from([255, 0, 0, 0, 0, 255]),
      Buffer.from([0x21, 0xfe, SECRET.length]),
      Buffer.from(SECRET, 'latin1'),
      Buffer.from([0, 0x21, 0xff, 11]),
      Buffer.from('XMP DataXMP', 'latin1'),
      Buffer.from([SECRET.length]),
      Buffer.from(SECRET, 'latin1'),
      Buffer.from([0, 0x2c, 0, 0, 0, 0, 2, 0, 1, 0, 0, 2, 2, 0x44, 0x0a, 0, 0x3b]),
      TRAILER,
    ]);
    const clean = stripImageMetadata('image/gif', gif);
    assert.deepEqual([clean.width, clean.height], [2, 1]);
    assert.ok(!clean.bytes.includes(SECRET) && !clean.bytes.includes(TRAILER));
    const pixels = await decode(gif, 'image/gif');
    assert.deepEqual(pixels, [255, 0, 0, 255, 0, 0, 255, 255], String(pixels));
    assert.deepEqual(await decode(clean.bytes, 'image/gif'), pixels);
  });

  it('refuses files whose structure does not parse', () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from('<html><script>x</script>'),
    ]);
    assert.throws(() => stripImageMetadata('image/png', png), MalformedImage);
    assert.throws(
      () => stripImageMetadata('image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff])),
      MalformedImage,
    );
    assert.throws(
      () => stripImageMetadata('image/webp', Buffer.from('RIFF\u00ff\u00ff\u00ff\u0000WEBP', 'latin1')),
      MalformedImage,
    );
    assert.throws(() => stripImageMetadata('image/gif', Buffer.from('GIF89a', 'latin1')), MalformedImage);
  });
});
