// Typed fields of content types: what each field type accepts, how a value is normalized, how a
// stored value carries over when a field's type changes, and the SQL expression filters, sorts and
// indexes use for it. One table per field type keeps these rules together.
import { sql, type SQL } from 'drizzle-orm';
import { jsonDepthWithin, MAX_JSON_DEPTH } from '../lib/json-depth.js';

export const FIELD_TYPES = [
  'text',
  'markdown',
  'number',
  'boolean',
  'datetime',
  'enum',
  'slug',
  'relation',
  'media',
  'json',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

interface FieldOptions {
  min_length?: number;
  max_length?: number;
  min?: number;
  max?: number;
  integer?: boolean;
  /** enum: the allowed values. */
  values?: string[];
  /** relation: the slug of the related content type. */
  type?: string;
}

/** A field as clients send it and as it is stored. */
export interface FieldDefinition {
  name: string;
  type: FieldType;
  required?: boolean;
  unique?: boolean;
  default?: unknown;
  options?: FieldOptions;
}

export interface RemovedField extends FieldDefinition {
  removed_at: string;
}

export const FIELD_NAME_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;
const DEFAULT_TEXT_LENGTH = 255;
export const MAX_TEXT_LENGTH = 10_000;
const MAX_MARKDOWN_LENGTH = 100_000;
const MAX_JSON_BYTES = 64 * 1024;
/** Longest text field that gets an index: its longest value stays under the B-tree entry limit. */
const MAX_INDEXED_TEXT_LENGTH = 600;

export type FilterOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'in' | 'contains';
export const FILTER_OPS: readonly FilterOp[] = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains'];

const EQUALITY: FilterOp[] = ['eq', 'ne', 'in'];
const ORDERED: FilterOp[] = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in'];
const TEXTUAL: FilterOp[] = [...ORDERED, 'contains'];

/** Why a value does not fit a field, or the normalized value. */
type Checked = { ok: true; value: unknown } | { ok: false; message: string };

interface FieldKind {
  /** Filter operators the field takes; none for fields that cannot be filtered. */
  ops: readonly FilterOp[];
  /** Whether the field sorts and, unless too long, gets an index. */
  sortable: boolean;
  /** How the value is stored in `data->>'name'` is read back for comparison. */
  cast?: 'numeric' | 'boolean';
  check(value: unknown, options: FieldOptions): Checked;
  /** A stored value of another field type carried over to this one; undefined when it cannot be. */
  convert?(value: unknown): unknown;
}

const ok = (value: unknown): Checked => ({ ok: true, value });
const bad = (message: string): Checked => ({ ok: false, message });

function checkString(value: unknown, min: number, max: number): Checked {
  if (typeof value !== 'string') return bad('must be a string');
  if (value.length < min) return bad(`must be at least ${min} characters`);
  if (value.length > max) return bad(`must be at most ${max} characters`);
  return ok(value);
}

const scalarToString = (value: unknown): unknown =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

function isHttpUrlOrPath(value: string): boolean {
  if (value.startsWith('/') && !value.startsWith('//')) return true;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export const FIELD_KINDS: Record<FieldType, FieldKind> = {
  text: {
    ops: TEXTUAL,
    sortable: true,
    check: (value, options) => checkString(value, options.min_length ?? 0, options.max_length ?? DEFAULT_TEXT_LENGTH),
    convert: scalarToString,
  },
  markdown: {
    ops: ['contains'],
    sortable: false,
    check: (value, options) => checkString(value, options.min_length ?? 0, options.max_length ?? MAX_MARKDOWN_LENGTH),
    convert: scalarToString,
  },
  number: {
    ops: ORDERED,
    sortable: true,
    cast: 'numeric',
    check: (value, options) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) return bad('must be a number');
      if (options.integer && !Number.isInteger(value)) return bad('must be a whole number');
      if (options.min !== undefined && value < options.min) return bad(`must be at least ${options.min}`);
      if (options.max !== undefined && value > options.max) return bad(`must be at most ${options.max}`);
      return ok(value);
    },
    convert: (value) =>
      typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : undefined,
  },
  boolean: {
    ops: EQUALITY,
    sortable: true,
    cast: 'boolean',
    check: (value) => (typeof value === 'boolean' ? ok(value) : bad('must be true or false')),
    convert: (value) => (value === 'true' ? true : value === 'false' ? false : undefined),
  },
  datetime: {
    ops: ORDERED,
    sortable: true,
    // Stored as UTC `toISOString()` text, whose order is the order of time, so the index needs no cast.
    check: (value) => {
      if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value)))
        return bad('must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z');
      return ok(new Date(value).toISOString());
    },
    convert: (value) => value,
  },
  enum: {
    ops: EQUALITY,
    sortable: true,
    check: (value, options) =>
      typeof value === 'string' && (options.values ?? []).includes(value)
        ? ok(value)
        : bad(`must be one of ${(options.values ?? []).join(', ')}`),
    convert: (value) => value,
  },
  slug: {
    ops: TEXTUAL,
    sortable: true,
    check: (value) =>
      typeof value === 'string' && SLUG_PATTERN.test(value)
        ? ok(value)
        : bad('must be lower-case letters, digits and hyphens (at most 100)'),
    convert: (value) => value,
  },
  relation: {
    ops: EQUALITY,
    sortable: false,
    check: (value) =>
      typeof value === 'string' && value.length > 0 && value.length <= 100
        ? ok(value)
        : bad('must be the id of an entry'),
    convert: (value) => value,
  },
  media: {
    ops: EQUALITY,
    sortable: false,
    check: (value) =>
      typeof value === 'string' && value.length <= 2000 && isHttpUrlOrPath(value)
        ? ok(value)
        : bad('must be an http(s) URL or a path on the site'),
    convert: (value) => value,
  },
  json: {
    ops: [],
    sortable: false,
    // Depth first: JSON.stringify recurses, and a value from a form or an AI draft has had no bound yet.
    check: (value) =>
      !jsonDepthWithin(value)
        ? bad(`must nest at most ${MAX_JSON_DEPTH} levels of arrays and objects`)
        : JSON.stringify(value).length <= MAX_JSON_BYTES
          ? ok(value)
          : bad(`must be at most ${MAX_JSON_BYTES} bytes of JSON`),
    convert: (value) => value,
  },
};

/** Checks one present value against its field. */
export function checkValue(field: FieldDefinition, value: unknown): Checked {
  return FIELD_KINDS[field.type].check(value, field.options ?? {});
}

/**
 * A stored value under a changed field definition: the value itself when it still fits, else its
 * conversion from the old type when that fits; `{ok: false}` when it would be lost.
 */
export function carryOver(field: FieldDefinition, value: unknown): Checked {
  const direct = checkValue(field, value);
  if (direct.ok) return direct;
  const converted = FIELD_KINDS[field.type].convert?.(value);
  if (converted === undefined) return direct;
  return checkValue(field, converted);
}

/** Whether a field gets its own index (filter and sort read it): sortable and short enough. */
export function isIndexed(field: FieldDefinition): boolean {
  const kind = FIELD_KINDS[field.type];
  if (!kind.sortable && field.type !== 'relation') return false;
  return field.type !== 'text' || (field.options?.max_length ?? DEFAULT_TEXT_LENGTH) <= MAX_INDEXED_TEXT_LENGTH;
}

/** The SQL expression of a field's value; filters, sorts and the field's index use exactly this. */
export function fieldExpression(field: Pick<FieldDefinition, 'name' | 'type'>): SQL {
  // Field names match FIELD_NAME_PATTERN, so they are safe as a literal (an index needs a literal).
  const text = sql.raw(`(data ->> '${field.name}')`);
  const cast = FIELD_KINDS[field.type].cast;
  return cast ? sql.raw(`((data ->> '${field.name}')::${cast})`) : text;
}

/** Problems of a field definition itself (options, default), as messages. */
export function fieldDefinitionProblems(field: FieldDefinition): string[] {
  const problems: string[] = [];
  const options = field.options ?? {};
  const where = `field "${field.name}"`;
  if (field.type === 'enum' && (!options.values || options.values.length === 0))
    problems.push(`${where}: an enum needs options.values`);
  if (field.type === 'relation' && !options.type)
    problems.push(`${where}: a relation needs options.type, the related type's slug`);
  if (options.max_length !== undefined) {
    const limit = field.type === 'markdown' ? MAX_MARKDOWN_LENGTH : MAX_TEXT_LENGTH;
    if (field.type !== 'text' && field.type !== 'markdown')
      problems.push(`${where}: max_length applies to text and markdown fields`);
    else if (options.max_length > limit) problems.push(`${where}: max_length is at most ${limit}`);
  }
  if (options.min !== undefined && options.max !== undefined && options.min > options.max)
    problems.push(`${where}: min is above max`);
  if (field.unique && !isIndexed(field)) {
    problems.push(
      `${where}: only number, boolean, datetime, enum, slug, relation and text fields of at most ${MAX_INDEXED_TEXT_LENGTH} characters can be unique`,
    );
  }
  if (field.default !== undefined && field.default !== null) {
    const checked = checkValue(field, field.default);
    if (!checked.ok) problems.push(`${where}: the default ${checked.message}`);
  }
  return problems;
}
