// Reads a Markdown source: strict UTF-8, an optional YAML front matter block between `---` lines,
// and the page fields Blume knows (title, description, order, draft; `site` on the root page).
// Unknown fields are kept out of the page model but allowed, so front matter written for other
// generators (tags, authors) builds unchanged.
import { parseDocument } from 'yaml';
import { DocsBuildError } from './errors.js';

export interface PageMeta {
  title?: string;
  description?: string;
  order?: number;
  draft: boolean;
  /** Site settings, only read from the root index page (blume.json takes precedence). */
  site?: unknown;
}

export interface ParsedSource {
  meta: PageMeta;
  body: string;
  /** Line number (1-based) of the file on which `body` starts. */
  bodyLine: number;
}

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });

export function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    const text = fatalDecoder.decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    const lossy = new TextDecoder('utf-8').decode(bytes);
    const at = lossy.indexOf('\ufffd');
    const line = lossy.slice(0, Math.max(at, 0)).split('\n').length;
    throw DocsBuildError.single('invalid_utf8', file, 'is not valid UTF-8 (save it as UTF-8)', line);
  }
}

const FENCE = /^---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/m;

export function parseSource(text: string, file: string): ParsedSource {
  if (!FENCE.test(text)) return { meta: { draft: false }, body: text, bodyLine: 1 };
  const start = text.indexOf('\n') + 1;
  const rest = text.slice(start);
  const close = CLOSE.exec(rest);
  if (close === null)
    throw DocsBuildError.single('front_matter', file, 'front matter starts with --- but has no closing --- line', 1);
  const yamlText = rest.slice(0, close.index);
  const afterClose = rest.indexOf('\n', close.index);
  const body = afterClose === -1 ? '' : rest.slice(afterClose + 1);
  const bodyLine = text.slice(0, text.length - body.length).split('\n').length;

  const simple = readSimpleFrontMatter(yamlText);
  if (simple !== undefined) return { meta: readMeta(simple, file), body, bodyLine };
  const doc = parseDocument(yamlText, { uniqueKeys: true, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError !== undefined) {
    const line = (firstError.linePos?.[0].line ?? 1) + 1;
    const reason = firstError.message.split('\n')[0] ?? 'invalid YAML';
    throw DocsBuildError.single('front_matter', file, `front matter is not valid YAML: ${reason}`, line);
  }
  // maxAliasCount bounds "billion laughs" alias expansion.
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  return { meta: readMeta(data, file), body, bodyLine };
}

const SIMPLE_LINE = /^(\p{L}[\w-]*):[ ]+(.*?)[ ]*$/u;
const PLAIN_TEXT = /^\p{L}[\p{L}\p{N}_ .,'()/-]*$/u;
const INTEGER = /^(?:0|-?[1-9]\d{0,14})$/;
/** Plain words that YAML's core schema reads as null or a boolean. */
const RESERVED = /^(?:null|true|false)$/i;

/**
 * Front matter made only of `key: value` lines whose values are plain text, whole numbers, true or
 * false, as most pages have, read without the YAML parser (a third of a page's work otherwise):
 * the same data as YAML's core schema gives. Anything else (quotes, colons, comments, lists,
 * blank lines, repeated keys) returns undefined and goes to the YAML parser.
 */
export function readSimpleFrontMatter(yamlText: string): Record<string, string | number | boolean> | undefined {
  if (!yamlText.endsWith('\n')) return undefined;
  const record: Record<string, string | number | boolean> = {};
  for (const line of yamlText.slice(0, -1).split('\n')) {
    const match = SIMPLE_LINE.exec(line);
    if (match === null) return undefined;
    const [, key, value] = match as unknown as [string, string, string];
    if (Object.hasOwn(record, key) || RESERVED.test(key)) return undefined;
    if (value === 'true' || value === 'false') record[key] = value === 'true';
    else if (INTEGER.test(value)) record[key] = Number(value);
    else if (PLAIN_TEXT.test(value) && !RESERVED.test(value)) record[key] = value;
    else return undefined;
  }
  return record;
}

function readMeta(data: unknown, file: string): PageMeta {
  if (data === null || data === undefined) return { draft: false };
  if (typeof data !== 'object' || Array.isArray(data))
    throw DocsBuildError.single('front_matter', file, 'front matter must be a YAML mapping (key: value lines)', 2);
  const record = data as Record<string, unknown>;
  const meta: PageMeta = { draft: false };
  const fail = (field: string, expected: string): never => {
    throw DocsBuildError.single(
      'front_matter',
      file,
      `front matter field "${field}" must be ${expected}, got ${describe(record[field])}`,
    );
  };
  if (record.title !== undefined) {
    if (typeof record.title !== 'string' && typeof record.title !== 'number') fail('title', 'a string');
    meta.title = String(record.title).trim();
    if (meta.title === '') fail('title', 'a non-empty string');
  }
  if (record.description !== undefined) {
    if (typeof record.description !== 'string') fail('description', 'a string');
    meta.description = String(record.description).trim();
  }
  if (record.order !== undefined) {
    if (typeof record.order !== 'number' || !Number.isFinite(record.order)) fail('order', 'a number');
    meta.order = record.order as number;
  }
  if (record.draft !== undefined) {
    if (typeof record.draft !== 'boolean') fail('draft', 'true or false');
    meta.draft = record.draft as boolean;
  }
  if (record.site !== undefined) meta.site = record.site;
  return meta;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `${typeof value} ${JSON.stringify(value)}`;
}
