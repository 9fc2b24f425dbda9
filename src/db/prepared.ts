// Named prepared statements for the hottest reads: Drizzle builds the SQL once per database instead
// of on every request, and PostgreSQL parses and plans it once per connection: the pool sets
// `plan_cache_mode = force_generic_plan` (src/db/client.ts), which only named statements obey. PGlite
// runs them as ordinary queries. Values go in as `sql.placeholder(name)`.
import { createHash } from 'node:crypto';
import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Database } from './client.js';

/** A value a condition compares with: known now, or a prepared statement's placeholder. */
export type Param<T> = T | Placeholder;

/** An array of text as one parameter, known now or a placeholder (a bare array would be spread into a list). */
export function textArray(values: Param<string[]>): SQL {
  return sql`${Array.isArray(values) ? sql.param(values) : values}::text[]`;
}

interface Preparable<P> {
  prepare(name: string): P;
}

/** PostgreSQL keeps this many bytes of a statement's name and drops the rest. */
const MAX_NAME_BYTES = 63;

/** The statement's name for a variant: a variant too long to spell out in it goes by a digest. */
function statementName(name: string, key: string): string {
  if (!key) return name;
  const spelled = `${name}_${key}`;
  return Buffer.byteLength(spelled) <= MAX_NAME_BYTES
    ? spelled
    : `${name}_${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
}

/**
 * Variants of one statement cached by name per database; past it, a request that varies its shape could fill memory
 * here and in every connection.
 */
const MAX_VARIANTS = 64;

/**
 * A statement built on first use for each database (tests open many) and each variant of its SQL
 * (`variant` names what the text depends on besides its placeholders), then reused. Past
 * `MAX_VARIANTS` variants, a new one is built for each call and sent unnamed.
 *
 * PostgreSQL runs it with its generic plan, made once with the values unknown: write the SQL so that
 * this plan is a good one for every value (a LIMIT or OFFSET that is a parameter is expected to let
 * a tenth of the rows through), and check it with `plan_cache_mode = force_generic_plan`.
 */
export function preparedStatement<A, P>(
  name: string,
  build: (db: Database, arg: A) => Preparable<P>,
  variant: (arg: A) => string = () => '',
): (db: Database, arg: A) => P {
  const built = new WeakMap<Database, Map<string, P>>();
  return (db, arg) => {
    let byVariant = built.get(db);
    if (!byVariant) built.set(db, (byVariant = new Map()));
    const key = variant(arg);
    let statement = byVariant.get(key);
    if (statement) return statement;
    // node-postgres sends a statement with an empty name unnamed: parsed and planned each time.
    if (byVariant.size >= MAX_VARIANTS) return build(db, arg).prepare('');
    byVariant.set(key, (statement = build(db, arg).prepare(statementName(name, key))));
    return statement;
  };
}
