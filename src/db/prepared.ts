// Named prepared statements for the hottest reads: Drizzle builds the SQL once per database, and
// PostgreSQL parses and plans it once per connection instead of on every request. PGlite runs them
// as ordinary queries. Values go in as `sql.placeholder(name)`.
import type { Database } from './client.js';

/** A statement built on first use for each database (tests open many), then reused. */
export function preparedStatement<P>(name: string, build: (db: Database, name: string) => P): (db: Database) => P {
  const built = new WeakMap<Database, P>();
  return (db) => {
    let statement = built.get(db);
    if (!statement) {
      statement = build(db, name);
      built.set(db, statement);
    }
    return statement;
  };
}
