// Desired and applied instance settings. PUT /env replaces the desired map; POST /restart copies it
// to the applied map in one transaction and tells every node (see directory.ts).
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { openSecret, sealSecret } from '../../lib/secrets.js';
import { SECRET_MASK, SETTING_NAMES, SETTINGS, isSettingName, settingProblem, type SettingName } from './allowlist.js';
import { siteSettings, type SiteSettingsRow } from './tables.js';

export type SettingsInput = Record<string, string | number | boolean>;

export async function loadSettings(db: Executor, siteId: string): Promise<SiteSettingsRow> {
  const [row] = await db.select().from(siteSettings).where(eq(siteSettings.siteId, siteId));
  return row ?? { siteId, desired: {}, applied: {}, generation: 0, desiredAt: new Date(0), appliedAt: null };
}

const SECRET_PURPOSE = 'instance-setting';

/** Secret settings are stored sealed with SECRET_KEY; only the code that uses one opens it. */
export function sealSetting(value: string, secretKey: string): string {
  return sealSecret(value, secretKey, SECRET_PURPOSE);
}

/**
 * The plain value of a secret setting as stored (undefined when unset). Values stored before
 * secrets were sealed read as they are, and are sealed by the next PUT that sends them.
 */
export function openSetting(
  values: Readonly<Record<string, string>>,
  name: SettingName,
  secretKey: string,
): string | undefined {
  const stored = values[name];
  if (stored === undefined || !stored.startsWith('v1.')) return stored;
  return openSecret(stored, secretKey, SECRET_PURPOSE);
}

/**
 * Validates a whole new map against the allowlist. Empty values unset a setting; a secret sent back
 * as the mask keeps its stored value, so a client can PUT what it read with GET. Secrets are sealed.
 */
export function validateSettings(
  input: SettingsInput,
  current: Readonly<Record<string, string>>,
  secretKey: string,
): Record<string, string> {
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
      if (kept === undefined)
        errors.push({ name, message: 'is the mask but no value is stored; send the secret itself' });
      else out[name] = kept;
      continue;
    }
    const problem = settingProblem(name, value);
    if (problem) errors.push({ name, message: problem });
    else out[name] = 'secret' in SETTINGS[name] ? sealSetting(value, secretKey) : value;
  }
  if (errors.length > 0) {
    throw new AppError('invalid_setting', errors.map((e) => `${e.name} ${e.message}`).join('; '), { errors });
  }
  return out;
}

export async function replaceDesiredSettings(
  db: Executor,
  siteId: string,
  input: SettingsInput,
  secretKey: string,
): Promise<SiteSettingsRow> {
  const current = await loadSettings(db, siteId);
  return storeDesired(db, siteId, validateSettings(input, current.desired, secretKey));
}

async function storeDesired(db: Executor, siteId: string, desired: Record<string, string>): Promise<SiteSettingsRow> {
  const [row] = await db
    .insert(siteSettings)
    .values({ siteId, desired, desiredAt: new Date() })
    .onConflictDoUpdate({ target: siteSettings.siteId, set: { desired, desiredAt: new Date() } })
    .returning();
  return row!;
}

/**
 * Changes some settings and keeps the rest (`blume settings set`): an empty value unsets a name.
 * Validated as a whole new map, like PUT /env.
 */
export async function updateDesiredSettings(
  db: Executor,
  siteId: string,
  changes: Readonly<Record<string, string>>,
  secretKey: string,
): Promise<SiteSettingsRow> {
  const current = await loadSettings(db, siteId);
  // Stored secrets go in as the mask, so they are kept sealed as they are, never sealed twice.
  const next: SettingsInput = Object.fromEntries(
    Object.entries(current.desired).map(([name, value]) => [
      name,
      isSettingName(name) && 'secret' in SETTINGS[name] ? SECRET_MASK : value,
    ]),
  );
  for (const [name, value] of Object.entries(changes)) {
    if (value.trim() === '') delete next[name];
    else next[name] = value;
  }
  return storeDesired(db, siteId, validateSettings(next, current.desired, secretKey));
}

/** Whether saved settings wait for a restart. */
export function settingsPending(row: SiteSettingsRow): boolean {
  return diffSettings(row.applied, row.desired).length > 0;
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
