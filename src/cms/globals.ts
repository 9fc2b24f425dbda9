// Globals: the forum settings groups a site exposes through `GET /globals/{slug}` (admin scope),
// read from the applied settings with secrets masked by the settings presenter.
import type { InstanceSettings, SettingName } from '../core/settings/allowlist.js';
import { presentSettings } from '../core/settings/presenters.js';
import { AppError } from '../http/errors.js';

const GLOBAL_GROUPS: Record<string, readonly SettingName[]> = {
  general: ['FORUM_TITLE'],
  registration: ['REGISTRATION_OPEN'],
  api: ['FORUM_API_PUBLIC_READ', 'API_CORS_ORIGINS'],
  ai: ['AI_CONTENT_ENABLED', 'AI_PROVIDER', 'AI_BASE_URL', 'AI_MODEL', 'AI_API_KEY'],
  mail: ['MAIL_SERVER', 'MAIL_PORT', 'MAIL_USE_TLS', 'MAIL_USERNAME', 'MAIL_PASSWORD', 'MAIL_DEFAULT_SENDER'],
  helpdesk: ['HELPDESK_SUPPORT_ADDRESS'],
};

export function globalGroup(
  settings: InstanceSettings,
  slug: string,
): { slug: string; values: Record<string, string> } {
  const names = Object.hasOwn(GLOBAL_GROUPS, slug) ? GLOBAL_GROUPS[slug] : undefined;
  if (!names)
    throw new AppError(
      'global_not_found',
      `No settings group "${slug}". Groups: ${Object.keys(GLOBAL_GROUPS).join(', ')}.`,
    );
  const values: Record<string, string> = {};
  for (const name of names) if (settings.values[name] !== undefined) values[name] = settings.values[name];
  return { slug, values: presentSettings(values) };
}
