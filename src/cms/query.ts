// The list query contract of DESIGN section 11, turned into SQL over `cms_entries`:
// `filter[<field>][<op>]=<value>`, `sort=-published_at,title`, `fields=a,b`, `include=<relation>`.
// Anything naming an unknown field or operator, or a value the field cannot hold, is 400 `invalid_filter`.
import { asc, desc, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { AppError } from '../http/errors.js';
import { FIELD_KINDS, FILTER_OPS, fieldExpression, type FieldDefinition, type FilterOp } from './fields.js';
import { cmsEntries } from './tables.js';

/** Which entries a read sees: published (live) ones, drafts and scheduled ones, or both. */
export type StatusView = 'published' | 'draft' | 'any';

const MAX_IN_VALUES = 100;
const MAX_SORT_KEYS = 5;

type Column = { kind: 'column'; name: string; column: SQLWrapper; ops: readonly FilterOp[]; time: boolean };
type Field = { kind: 'field'; field: FieldDefinition };
type Target = Column | Field;

/** Entry attributes outside `data` that filter and sort like fields. */
export const FILTER_COLUMNS: Record<string, Column> = {
  id: { kind: 'column', name: 'id', column: cmsEntries.id, ops: ['eq', 'ne', 'in'], time: false },
  slug: {
    kind: 'column',
    name: 'slug',
    column: cmsEntries.slug,
    ops: ['eq', 'ne', 'in', 'lt', 'lte', 'gt', 'gte', 'contains'],
    time: false,
  },
  created_at: {
    kind: 'column',
    name: 'created_at',
    column: cmsEntries.createdAt,
    ops: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'],
    time: true,
  },
  updated_at: {
    kind: 'column',
    name: 'updated_at',
    column: cmsEntries.updatedAt,
    ops: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'],
    time: true,
  },
  published_at: {
    kind: 'column',
    name: 'published_at',
    column: cmsEntries.publishedAt,
    ops: ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'],
    time: true,
  },
};

function invalid(detail: string): AppError {
  return new AppError('invalid_filter', detail);
}

function targetOf(fields: readonly FieldDefinition[], name: string): Target {
  const column = FILTER_COLUMNS[name];
  if (column) return column;
  const field = fields.find((f) => f.name === name);
  if (!field)
    throw invalid(
      `Unknown field "${name}". Fields: ${[...Object.keys(FILTER_COLUMNS), ...fields.map((f) => f.name)].join(', ')}.`,
    );
  return { kind: 'field', field };
}

function parseTime(name: string, raw: string): Date {
  const time = Date.parse(raw);
  if (Number.isNaN(time)) throw invalid(`filter[${name}]: "${raw}" is not a date-time.`);
  return new Date(time);
}

/** A filter value as the field's SQL expression compares it. */
function filterValue(target: Target, name: string, raw: string): unknown {
  if (target.kind === 'column') return target.time ? parseTime(name, raw).toISOString() : raw;
  switch (target.field.type) {
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value)) throw invalid(`filter[${name}]: "${raw}" is not a number.`);
      return value;
    }
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw invalid(`filter[${name}]: "${raw}" is not true or false.`);
      return raw === 'true';
    case 'datetime':
      return parseTime(name, raw).toISOString();
    default:
      return raw;
  }
}

/** `text` taken literally inside a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function condition(target: Target, name: string, op: FilterOp, raw: string): SQL {
  const ops = target.kind === 'column' ? target.ops : FIELD_KINDS[target.field.type].ops;
  if (!ops.includes(op)) {
    throw invalid(
      ops.length === 0
        ? `Field "${name}" cannot be filtered.`
        : `Field "${name}" takes the operators ${ops.join(', ')}, not "${op}".`,
    );
  }
  const expression = target.kind === 'column' ? sql`${target.column}` : fieldExpression(target.field);
  if (op === 'contains') return sql`${expression}::text ilike ${`%${escapeLike(raw)}%`}`;
  if (op === 'in') {
    const values = raw
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
    if (values.length === 0 || values.length > MAX_IN_VALUES)
      throw invalid(`filter[${name}][in] takes 1 to ${MAX_IN_VALUES} comma-separated values.`);
    return sql`${expression} in (${sql.join(
      values.map((value) => sql`${filterValue(target, name, value)}`),
      sql`, `,
    )})`;
  }
  const value = filterValue(target, name, raw);
  const symbol = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' }[op];
  // `ne` also matches entries without a value, as a reader would expect.
  if (op === 'ne') return sql`${expression} is distinct from ${value}`;
  return sql`${expression} ${sql.raw(symbol)} ${value}`;
}

const FILTER_KEY = /^filter\[([^\]]+)\](?:\[([^\]]+)\])?$/;

/** SQL conditions of every `filter[...]` parameter of the query. */
export function filterConditions(fields: readonly FieldDefinition[], query: Record<string, unknown>): SQL[] {
  const conditions: SQL[] = [];
  for (const [key, raw] of Object.entries(query)) {
    if (!key.startsWith('filter')) continue;
    const match = FILTER_KEY.exec(key);
    if (!match) throw invalid(`"${key}" is not of the form filter[<field>][<op>].`);
    const name = match[1]!;
    const op = (match[2] ?? 'eq') as FilterOp;
    if (!FILTER_OPS.includes(op)) throw invalid(`Unknown operator "${op}"; use one of ${FILTER_OPS.join(', ')}.`);
    if (typeof raw !== 'string') throw invalid(`${key} is given more than once.`);
    conditions.push(condition(targetOf(fields, name), name, op, raw));
  }
  return conditions;
}

export interface SortOrder {
  /** ORDER BY terms, ending with `id` so pages are stable; entries without a value come last either way. */
  order: SQL[];
  /**
   * The first key, when it sorts descending and may be null. An index read backwards gives nulls
   * first, so the list reads the entries with a value (`first` leads their order) and those without
   * (`rest`) as two parts (entries.ts); otherwise the planner sorts every match.
   */
  split?: { expression: SQL; first: SQL; rest: SQL[] };
}

/** Whether a column can be null in `view`: live entries all have `published_at`. */
const nullableColumn = (column: Column, view: StatusView): boolean =>
  column.name === 'slug' || (column.name === 'published_at' && view !== 'published');

/** ORDER BY terms for `sort` as the status view lists them. */
export function sortOrder(
  fields: readonly FieldDefinition[],
  sort: string | undefined,
  fallback: string,
  view: StatusView,
): SortOrder {
  const keys = (sort ?? fallback)
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (keys.length > MAX_SORT_KEYS) throw invalid(`Sort by at most ${MAX_SORT_KEYS} fields.`);
  let descending = false;
  let split: SortOrder['split'];
  const order = keys.map((key, position) => {
    descending = key.startsWith('-');
    const name = descending ? key.slice(1) : key;
    const target = targetOf(fields, name);
    if (target.kind === 'field' && !FIELD_KINDS[target.field.type].sortable)
      throw invalid(`Field "${name}" cannot be sorted.`);
    const expression = target.kind === 'column' ? sql`${target.column}` : fieldExpression(target.field);
    const nullable = target.kind === 'field' || nullableColumn(target, view);
    if (!descending) return sql`${expression} asc nulls last`;
    // Without nulls, plain `desc` is the same order and matches an index read backwards.
    if (!nullable) return sql`${expression} desc`;
    if (position === 0) split = { expression, first: sql`${expression} desc`, rest: [] };
    return sql`${expression} desc nulls last`;
  });
  order.push(descending ? desc(cmsEntries.id) : asc(cmsEntries.id));
  if (split) split.rest = order.slice(1);
  return split ? { order, split } : { order };
}

/** Field names of a `fields=` or `include=` list, each checked against the type. */
export function fieldList(
  fields: readonly FieldDefinition[],
  list: string | undefined,
  parameter: 'fields' | 'include',
): FieldDefinition[] | undefined {
  if (list === undefined) return undefined;
  const names = list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return names.map((name) => {
    const field = fields.find((f) => f.name === name);
    if (!field) throw invalid(`${parameter}: unknown field "${name}".`);
    if (parameter === 'include' && field.type !== 'relation')
      throw invalid(`include: field "${name}" is not a relation.`);
    return field;
  });
}
