// Desired and applied instance settings. PUT /env replaces the desired map; POST /restart copies it
// to the applied map in one transaction and tells every node (see directory.ts).
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError, registerErrorCodes } from '../../http/errors.js';
import { SECRET_MASK, SETTING_NAMES, SETTINGS, isSettingName, settingProblem, type SettingName } from './allowlist.js';
import { siteSettings, type SiteSettingsRow } from './tables.js';

registerErrorCodes({
  unknown_setting: { status: 422, title: 'The settings map names a setting that is not allowed' },
  invalid_setting: { status: 422, title: 'A setting value does not fit its type' },
});

export type SettingsInput = Record<string, string | number | boolean>;

export async function loadSettings(db: Executor, siteId: string): Promise<SiteSettingsRow> {
  const [row] = await db.select().from(siteSettings).where(eq(siteSettings.siteId, siteId));
  return row ?? { siteId, desired: {}, applied: {}, generation: 0, desiredAt: new Date(0), appliedAt: null };
}

/**
 * Validates a whole new map against the allowlist. Empty values unset a setting; a secret sent back
 * as the mask keeps its stored value, so a client can PUT what it read with GET.
 */
export function validateSettings(input: SettingsInput, current: Readonly<Record<string, string>>): Record<string, string> {
  const unknown = Object.keys(input).filter((name) => !isSettingName(name));
  if (unknown.length > 0) {
    throw new AppError('unknown_setting', `Not allowed: ${unknown.join(', ')}. Allowed: ${SETTING_NAMES.join(', ')}.`, {
      unknown,
      allowed: SETTING_NAMES,
    });
  }
  const out: Record<string, string> = {};
  const errors: Array<{ name: string; message: string }> = [];
  for (const [name, raw] of Object.entries(input) as Array<[SettingName, string | number | boolean]>) {
    // JSON booleans and numbers are accepted as their env-file spelling.
    const value = String(raw).trim();
    if (value === '') continue;
    if ('secret' in SETTINGS[name] && value === SECRET_MASK) {
      const kept = current[name];
      if (kept === undefined) errors.push({ name, message: 'is the mask but no value is stored; send the secret itself' });
      else out[name] = kept;
      continue;
    }
    const problem = settingProblem(name, value);
    if (problem) errors.push({ name, message: problem });
    else out[name] = value;
  }
  if (errors.length > 0) {
    throw new AppError('invalid_setting', errors.map((e) => `${e.name} ${e.message}`).join('; '), { errors });
  }
  return out;
}

export async function replaceDesiredSettings(db: Executor, siteId: string, input: SettingsInput): Promise<SiteSettingsRow> {
  const current = await loadSettings(db, siteId);
  const desired = validateSettings(input, current.desired);
  const [row] = await db
    .insert(siteSettings)
    .values({ siteId, desired, desiredAt: new Date() })
    .onConflictDoUpdate({ target: siteSettings.siteId, set: { desired, desiredAt: new Date() } })
    .returning();
  return row!;
}

export interface SettingChange {
  name: string;
  change: 'added' | 'changed' | 'removed';
}

export function diffSettings(before: Record<string, string>, after: Record<string, string>): SettingChange[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changes: SettingChange[] = [];
  for (const name of names) {
    if (!(name in before)) changes.push({ name, change: 'added' });
    else if (!(name in after)) changes.push({ name, change: 'removed' });
    else if (before[name] !== after[name]) changes.push({ name, change: 'changed' });
  }
  return changes;
}

export interface AppliedSettings {
  row: SiteSettingsRow;
  changes: SettingChange[];
}

/** Makes the desired map the applied one; the row lock serializes concurrent restarts. */
export async function applyDesiredSettings(db: Executor, siteId: string): Promise<AppliedSettings> {
  return db.transaction(async (tx) => {
    await tx.insert(siteSettings).values({ siteId }).onConflictDoNothing();
    const [current] = await tx.select().from(siteSettings).where(eq(siteSettings.siteId, siteId)).for('update');
    const changes = diffSettings(current!.applied, current!.desired);
    const [row] = await tx
      .update(siteSettings)
      .set({ applied: current!.desired, generation: sql`${siteSettings.generation} + 1`, appliedAt: new Date() })
      .where(eq(siteSettings.siteId, siteId))
      .returning();
    return { row: row!, changes };
  });
}
