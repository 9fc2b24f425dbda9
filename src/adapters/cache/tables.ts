import { bigint, index, jsonb, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/**
 * One row per cache scope (`site:<id>`, `settings:<site>`, ...), moved by triggers in the
 * transaction of every statement that writes what the scope's readers read, whoever writes (a node,
 * the CLI, SQL, a restore). `moved_by` is the id of the transaction that moved it last: each node
 * reads the rows moved by transactions it may not have seen yet, and drops what it keeps under
 * them (src/adapters/cache/epochs.ts, docs/decisions/0111-cache-seam.md).
 */
export const cacheEpochs = pgTable(
  'cache_epochs',
  {
    scope: text('scope').primaryKey(),
    epoch: bigint('epoch', { mode: 'number' }).notNull().default(0),
    movedBy: bigint('moved_by', { mode: 'number' }).notNull().default(0),
  },
  (t) => [index('cache_epochs_moved_by_idx').on(t.movedBy)],
);

/**
 * What moved a scope's epoch, for the scopes whose triggers say (decision 0150): the rows one
 * statement wrote, filed under the epoch it moved the scope to, so that a node keeps what the
 * write cannot have changed. A move with no row here (another table's trigger, a statement of many
 * rows, a TRUNCATE) ends everything kept under the scope, as before. The last 256 of each scope are
 * kept: a move's changes take the slot `epoch % 256`, over the ones filed 256 moves before, so the
 * table never holds more and nothing deletes from it (decision 0152).
 */
export const cacheChanges = pgTable(
  'cache_changes',
  {
    scope: text('scope').notNull(),
    slot: smallint('slot').notNull(),
    epoch: bigint('epoch', { mode: 'number' }).notNull(),
    movedBy: bigint('moved_by', { mode: 'number' }).notNull(),
    changes: jsonb('changes').notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.slot] }), index('cache_changes_moved_by_idx').on(t.movedBy)],
);
