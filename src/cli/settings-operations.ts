// `blume settings get|set|apply`: the instance settings of the community instance (single mode) or
// of `--site ID` (platform), through the same service and rules as /api/instances/{id}/env.
import { SETTING_NAMES } from '../core/settings/allowlist.js';
import { presentSettings } from '../core/settings/presenters.js';
import {
  applyDesiredSettings,
  loadSettings,
  settingsPending,
  updateDesiredSettings,
} from '../core/settings/service.js';
import { findSite } from '../core/sites/service.js';
import { AppError } from '../http/errors.js';
import { OperationError, type OperationArgs, type OperationContext } from './operation-context.js';

async function settingsSite(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const id = ctx.singleSite ?? args.site;
  if (!id)
    throw new OperationError(
      'settings needs --site ID on a platform (in single mode it acts on the community instance).',
    );
  if (!(await findSite(ctx.database.db, id))) throw new OperationError(`No site "${id}".`);
  return id;
}

function pendingLine(pending: boolean): string {
  return pending ? 'Saved settings wait for `blume settings apply`.' : 'Every saved setting is applied.';
}

export async function settingsGet(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const row = await loadSettings(ctx.database.db, await settingsSite(ctx, args));
  const lines = Object.entries(presentSettings(row.desired)).map(([name, value]) => `${name}=${value}`);
  return [...(lines.length > 0 ? lines : ['(no settings saved)']), pendingLine(settingsPending(row))].join('\n');
}

/** Parses the NAME=VALUE words of `settings set`; the CLI sends them as JSON in `args.assignments`. */
export function parseAssignments(words: readonly string[]): Record<string, string> {
  if (words.length === 0)
    throw new OperationError(`settings set needs NAME=VALUE..., names: ${SETTING_NAMES.join(', ')}.`);
  const out: Record<string, string> = {};
  for (const word of words) {
    const cut = word.indexOf('=');
    if (cut <= 0) throw new OperationError(`"${word}" is not NAME=VALUE.`);
    out[word.slice(0, cut)] = word.slice(cut + 1);
  }
  return out;
}

export async function settingsSet(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const site = await settingsSite(ctx, args);
  const assignments = JSON.parse(args.assignments ?? '{}') as Record<string, string>;
  try {
    const row = await updateDesiredSettings(ctx.database.db, site, assignments, ctx.secretKey);
    return `Saved ${Object.keys(assignments).sort().join(', ')} for "${site}". ${pendingLine(settingsPending(row))}`;
  } catch (error) {
    if (error instanceof AppError) throw new OperationError(error.message);
    throw error;
  }
}

export async function settingsApply(ctx: OperationContext, args: OperationArgs): Promise<string> {
  const site = await settingsSite(ctx, args);
  const applied = await applyDesiredSettings(ctx.database.db, site);
  // Every node drops its copy and reads the applied map on its next request, as after POST /restart:
  // a trigger moved the site's settings epoch.
  const changed = applied.changes.map((change) => `${change.name} ${change.change}`).join(', ');
  return `Applied settings of "${site}" (generation ${applied.row.generation})${changed ? `: ${changed}` : '; nothing changed'}.`;
}
