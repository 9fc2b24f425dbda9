import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';

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
