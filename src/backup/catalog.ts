// What a backup holds, read from the database's own catalog rather than from a list kept by hand:
// every table of the public schema (a new domain's tables are in the next backup without a change
// here), in foreign-key order, and every sequence. The migrations' own bookkeeping (schema drizzle)
// is not data: a restore migrates to the backup's level instead.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';

export interface TableInfo {
  name: string;
  /** The columns a row is written with (generated ones are left to the database). */
  columns: string[];
  /** Rows are read in this order, so the same data makes the same file on either database. */
  primaryKey: string[];
  /** The json and jsonb columns (and their type), written wrapped: see `rowAsJson`. */
  jsonColumns: Map<string, 'json' | 'jsonb'>;
  /** Has a GENERATED ALWAYS identity column, which a restore writes with OVERRIDING SYSTEM VALUE. */
  identityAlways: boolean;
}

interface Catalog {
  /** Parents before children: loading in this order satisfies every foreign key. */
  tables: TableInfo[];
  sequences: string[];
}

// `cache_epochs` is left out: the cache seam's counters name transactions of the database they were
// written in (decision 0111), so a restored install starts its own, and the restore's writes move them.
export async function readCatalog(db: Executor): Promise<Catalog> {
  const columns = await queryRows<{
    table: string;
    column: string;
    type: string;
    identity: string;
    generated: string;
    primary: boolean;
  }>(
    db,
    sql`select c.relname as "table", a.attname as "column", format_type(a.atttypid, null) as type, a.attidentity as identity, a.attgenerated as generated,
               coalesce(a.attnum = any(i.indkey), false) as primary
          from pg_class c
          join pg_namespace n on n.oid = c.relnamespace
          join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
          left join pg_index i on i.indrelid = c.oid and i.indisprimary
         where n.nspname = 'public' and c.relkind = 'r' and c.relname <> 'cache_epochs'
         order by c.relname, a.attnum`,
  );
  const edges = await queryRows<{ child: string; parent: string }>(
    db,
    sql`select distinct c.relname as child, p.relname as parent
          from pg_constraint k
          join pg_class c on c.oid = k.conrelid
          join pg_class p on p.oid = k.confrelid
          join pg_namespace n on n.oid = c.relnamespace
         where k.contype = 'f' and n.nspname = 'public'`,
  );
  const sequences = await queryRows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'public' and c.relkind = 'S' order by c.relname`,
  );

  const tables = new Map<string, TableInfo>();
  for (const row of columns) {
    const table: TableInfo = tables.get(row.table) ?? {
      name: row.table,
      columns: [],
      primaryKey: [],
      jsonColumns: new Map(),
      identityAlways: false,
    };
    tables.set(row.table, table);
    if (row.generated !== '') continue;
    table.columns.push(row.column);
    if (row.primary) table.primaryKey.push(row.column);
    if (row.type === 'json' || row.type === 'jsonb') table.jsonColumns.set(row.column, row.type);
    if (row.identity === 'a') table.identityAlways = true;
  }
  return { tables: dependencyOrder([...tables.values()], edges), sequences: sequences.map((s) => s.name) };
}

/** Tables with every table they reference before them; a cycle cannot be loaded table by table. */
function dependencyOrder(tables: TableInfo[], edges: Array<{ child: string; parent: string }>): TableInfo[] {
  const parents = new Map<string, Set<string>>(tables.map((t) => [t.name, new Set<string>()]));
  for (const { child, parent } of edges) parents.get(child)?.add(parent);
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  let remaining = [...tables].sort((a, b) => a.name.localeCompare(b.name));
  while (remaining.length > 0) {
    const ready = remaining.filter((t) => [...parents.get(t.name)!].every((p) => placed.has(p)));
    if (ready.length === 0)
      throw new Error(`tables reference each other in a cycle: ${remaining.map((t) => t.name).join(', ')}`);
    for (const table of ready) {
      ordered.push(table);
      placed.add(table.name);
    }
    remaining = remaining.filter((t) => !placed.has(t.name));
  }
  return ordered;
}

/**
 * The SQL of one row of `t` as a JSON object (column name -> value, as to_jsonb writes them). A
 * json(b) value goes wrapped in a one-element array: unwrapped, the JSON `null` a column holds and
 * an SQL NULL would be written the same.
 */
export function rowAsJson(table: TableInfo): string {
  if (table.jsonColumns.size === 0) return 'to_jsonb(t)';
  const wrapped = [...table.jsonColumns.keys()].map(
    (column) =>
      `'${column.replaceAll("'", "''")}', case when t.${ident(column)} is null then null else jsonb_build_array(t.${ident(column)}) end`,
  );
  return `(to_jsonb(t) || jsonb_build_object(${wrapped.join(', ')}))`;
}

/** What an INSERT selects for each column from `r` (a row of the file) and `p` (it read as a row of the table). */
export function columnsFromJson(table: TableInfo): string[] {
  return table.columns.map((column) => {
    const type = table.jsonColumns.get(column);
    if (!type) return `p.${ident(column)}`;
    // `-> 0` of a JSON null is that null (a scalar reads as an array of one): only an array is a value.
    const value = `r.value -> '${column.replaceAll("'", "''")}'`;
    return `(case when jsonb_typeof(${value}) = 'array' then (${value}) -> 0 end)::${type}`;
  });
}

/** A quoted SQL identifier; the names come from the catalog, never from a request. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
