// Prepared statements for the hottest reads: Drizzle builds the SQL once per database instead of on
// every request, and a named statement is parsed and planned once per PostgreSQL connection. PGlite
// runs them as ordinary queries. Values go in as `sql.placeholder(name)`.
import type { Database } from './client.js';

interface Preparable<P> {
  prepare(name: string): P;
}

/**
 * A statement built on first use for each database (tests open many) and each variant of its SQL
 * (`variant` names what the text depends on besides its placeholders), then reused.
 *
 * `name` null leaves it unnamed in PostgreSQL, which then parses and plans it with its values on
 * every execution: right for a statement whose plan depends on them. With LIMIT and OFFSET unknown,
 * a generic plan expects a tenth of the table (see forumTopicPage in src/forum/topics.ts).
 */
export function preparedStatement<A, P>(name: string | null, build: (db: Database, arg: A) => Preparable<P>, variant: (arg: A) => string = () => ''): (db: Database, arg: A) => P {
  const built = new WeakMap<Database, Map<string, P>>();
  return (db, arg) => {
    let byVariant = built.get(db);
    if (!byVariant) built.set(db, (byVariant = new Map()));
    const key = variant(arg);
    let statement = byVariant.get(key);
    if (!statement) byVariant.set(key, (statement = build(db, arg).prepare(name === null ? '' : key ? `${name}_${key}` : name)));
    return statement;
  };
}
