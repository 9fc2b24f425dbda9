// Named prepared statements for the hottest reads: Drizzle builds the SQL once per database instead
// of on every request, and PostgreSQL parses it once per connection and, once it settles on a
// generic plan, stops planning it. PGlite runs them as ordinary queries. Values go in as
// `sql.placeholder(name)`.
import type { Database } from './client.js';

interface Preparable<P> {
  prepare(name: string): P;
}

/**
 * A statement built on first use for each database (tests open many) and each variant of its SQL
 * (`variant` names what the text depends on besides its placeholders), then reused.
 *
 * PostgreSQL plans a named statement for its first five executions with their values, then keeps a
 * generic plan if that looks no dearer: write the SQL so that its generic plan is a good one (a
 * LIMIT that is a parameter is expected to let a tenth of the rows through).
 */
export function preparedStatement<A, P>(name: string, build: (db: Database, arg: A) => Preparable<P>, variant: (arg: A) => string = () => ''): (db: Database, arg: A) => P {
  const built = new WeakMap<Database, Map<string, P>>();
  return (db, arg) => {
    let byVariant = built.get(db);
    if (!byVariant) built.set(db, (byVariant = new Map()));
    const key = variant(arg);
    let statement = byVariant.get(key);
    if (!statement) byVariant.set(key, (statement = build(db, arg).prepare(key ? `${name}_${key}` : name)));
    return statement;
  };
}
