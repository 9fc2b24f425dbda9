import { SECRET_MASK, SETTINGS, isSettingName } from './allowlist.js';
import type { RestartOut, SettingsMapOut } from './schemas.js';
import type { AppliedSettings } from './service.js';

/** Secrets never leave: they read back as the mask. */
export function presentSettings(values: Record<string, string>): SettingsMapOut {
  const out: SettingsMapOut = {};
  for (const name of Object.keys(values).sort()) {
    out[name] = isSettingName(name) && 'secret' in SETTINGS[name] ? SECRET_MASK : values[name]!;
  }
  return out;
}

export function presentRestart(siteId: string, applied: AppliedSettings): RestartOut {
  return {
    site: siteId,
    generation: applied.row.generation,
    applied_at: (applied.row.appliedAt ?? new Date()).toISOString(),
    changed: applied.changes,
  };
}
