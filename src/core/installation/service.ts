// The installation's mode (decision 0025): recorded at install, checked by every command and server
// start, so a single community instance never gets a portal account by mistake, and the other way round.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { installation, type InstallationRow } from './tables.js';

/** What a process runs as: the configured mode (BLUME_MODE or `--single`) and, in single mode, the site. */
export interface RunMode {
  mode: 'platform' | 'single';
  /** The community instance's site id in single mode. */
  instanceId?: string | undefined;
}

export class ModeMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModeMismatchError';
  }
}

function describe(mode: RunMode): string {
  return mode.mode === 'single' ? `a single community instance ("${mode.instanceId}")` : 'a platform';
}

/** The one-line refusal when `running` disagrees with the recorded installation, or undefined. */
export function modeMismatch(recorded: RunMode, running: RunMode): string | undefined {
  if (recorded.mode === running.mode && (recorded.mode === 'platform' || recorded.instanceId === running.instanceId))
    return undefined;
  const fix =
    recorded.mode === 'single'
      ? `set BLUME_MODE=single and BLUME_INSTANCE_ID=${recorded.instanceId} (the image sets BLUME_MODE), or pass --single`
      : 'unset BLUME_MODE (or set it to platform) and drop --single';
  return `This installation is ${describe(recorded)}, but this command runs as ${describe(running)}; ${fix}.`;
}

/** The recorded installation; undefined before the first install (or before its table exists). */
export async function readInstallation(db: Executor): Promise<RunMode | undefined> {
  const [present] = await queryRows<{ present: boolean }>(
    db,
    sql`select to_regclass('public.installation') is not null as present`,
  );
  if (!present?.present) return undefined;
  const [row] = await db.select().from(installation);
  return row ? fromRow(row) : undefined;
}

function fromRow(row: InstallationRow): RunMode {
  return row.mode === 'single' ? { mode: 'single', instanceId: row.instanceId ?? undefined } : { mode: 'platform' };
}

/** Throws ModeMismatchError when an installation is recorded and `running` disagrees with it. */
export async function checkInstallation(db: Executor, running: RunMode): Promise<void> {
  const recorded = await readInstallation(db);
  const problem = recorded && modeMismatch(recorded, running);
  if (problem) throw new ModeMismatchError(problem);
}

/** Records the mode at install (the first one wins; concurrent installs agree on it), then checks it. */
export async function recordInstallation(db: Executor, running: RunMode): Promise<void> {
  await db
    .insert(installation)
    .values({ id: 1, mode: running.mode, instanceId: running.mode === 'single' ? running.instanceId : null })
    .onConflictDoNothing();
  await checkInstallation(db, running);
}
