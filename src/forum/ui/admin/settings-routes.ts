// The instance settings page, on the settings service itself (desired and applied state): saving
// replaces the desired map exactly as PUT /env does, and "Apply and restart" applies it and tells
// every node, exactly as POST /restart does. On a platform, the owner settings (decision 0116) are
// shown read-only to admins other than the site's owner, and a post that carries one is refused.
import { field, seeOther } from '../../../http/forms.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isOwnerSetting, isSettingName, SECRET_MASK, SETTING_NAMES } from '../../../core/settings/allowlist.js';
import { mailInForce } from '../../../core/settings/mail.js';
import {
  applyDesiredSettings,
  diffSettings,
  loadSettings,
  replaceDesiredSettings,
  type SettingsInput,
} from '../../../core/settings/service.js';
import { AppError } from '../../../http/errors.js';
import { FORM_BODY_LIMIT, sendPage } from '../forms.js';
import { ADMIN_FORM, ADMIN_PAGE } from './access.js';
import { isSecret, settingsView, type SettingsPage } from './settings-views.js';
import type { FieldErrors } from './structure-views.js';
import type { Flash } from './views.js';

const SettingsQuery = Type.Object({
  saved: Type.Optional(Type.String({ maxLength: 5 })),
  applied: Type.Optional(Type.String({ maxLength: 12 })),
  changed: Type.Optional(Type.String({ maxLength: 6 })),
});
type Query = { Querystring: { saved?: string; applied?: string; changed?: string } };

function flashOf(query: Query['Querystring']): Flash | undefined {
  if (query.saved) return { kind: 'ok', text: 'Settings saved. They take effect when you apply them.' };
  if (query.applied && /^\d+$/.test(query.applied)) {
    const changed = Number(query.changed ?? '0');
    return {
      kind: 'ok',
      text: `Applied on every node (generation ${query.applied}): ${
        changed === 0 ? 'nothing changed' : `${changed} setting${changed === 1 ? '' : 's'} changed`
      }.`,
    };
  }
  return undefined;
}

/** Whether the page's viewer changes the owner settings: every admin of a single instance, the owner on a platform. */
function changesOwnerSettings(request: FastifyRequest): boolean {
  if (request.server.deps.mode === 'single') return true;
  const { site, viewer } = request.ui;
  return viewer.kind === 'member' && viewer.member.userId !== null && viewer.member.userId === site.ownerId;
}

/**
 * The posted form as a settings map: empty fields unset, an untouched secret keeps its value. Owner
 * settings the viewer may not change keep their stored values; a post carrying one is refused.
 */
function readSettings(
  request: FastifyRequest,
  stored: Record<string, string>,
): { input: SettingsInput; shown: Record<string, string> } {
  const input: SettingsInput = {};
  const shown: Record<string, string> = {};
  const body = (request.body ?? {}) as Record<string, unknown>;
  const locked = changesOwnerSettings(request) ? [] : SETTING_NAMES.filter(isOwnerSetting);
  const carried = locked.filter((name) => Object.hasOwn(body, name) || Object.hasOwn(body, `clear_${name}`));
  if (carried.length > 0)
    throw new AppError(
      'forbidden',
      `Only the site's owner changes ${carried.join(', ')} on this platform; nothing was saved.`,
    );
  for (const name of locked) {
    if (name in stored) input[name] = isSecret(name) ? SECRET_MASK : stored[name]!;
  }
  for (const name of SETTING_NAMES) {
    if (locked.includes(name)) continue;
    // Over-long values go to the service as they are, which names the limit; the form's body limit bounds them.
    const value = field(request, name, FORM_BODY_LIMIT) ?? '';
    if (isSecret(name)) {
      if (field(request, `clear_${name}`, 5) === 'on') continue;
      if (value !== '') input[name] = value;
      else if (name in stored) input[name] = SECRET_MASK;
      continue;
    }
    shown[name] = value;
    if (value.trim() !== '') input[name] = value;
  }
  return { input, shown };
}

export async function adminSettingsRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { values?: Record<string, string>; errors?: FieldErrors; flash?: Flash; status?: number },
  ) {
    const ui = request.ui;
    const row = await loadSettings(db, ui.site.id);
    const secret = (name: string) => isSettingName(name) && isSecret(name);
    const visible = Object.fromEntries(Object.entries(row.desired).filter(([name]) => !secret(name)));
    const page: SettingsPage = {
      values: options.values ?? visible,
      storedSecrets: new Set(Object.keys(row.desired).filter(secret)),
      pending: diffSettings(row.applied, row.desired),
      desired: row.desired,
      applied: row.applied,
      generation: row.generation,
      appliedAt: row.appliedAt,
      errors: options.errors ?? {},
      ownerOnly: changesOwnerSettings(request) ? new Set() : new Set(SETTING_NAMES.filter(isOwnerSetting)),
      mail: mailInForce(request.ui.settings, app.deps.config.mail),
      ...(options.flash ? { flash: options.flash } : {}),
    };
    return sendPage(reply, ui, 'Settings', settingsView(ui, page), { status: options.status ?? 200, private: true });
  }

  app.get<Query>(
    '/admin/settings',
    { schema: { querystring: SettingsQuery }, preHandler: ADMIN_PAGE },
    async (request, reply) => {
      const flash = flashOf(request.query);
      return render(request, reply, flash ? { flash } : {});
    },
  );

  app.post('/admin/settings', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const siteId = request.ui.site.id;
    const { input, shown } = readSettings(request, (await loadSettings(db, siteId)).desired);
    try {
      await replaceDesiredSettings(db, siteId, input, app.deps.config.secretKey);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_setting') {
        const list = (error.extensions.errors ?? []) as Array<{ name: string; message: string }>;
        const errors: FieldErrors = Object.fromEntries(list.map((e) => [e.name, `${e.name} ${e.message}.`]));
        const flash: Flash = {
          kind: 'error',
          text: `Nothing was saved: ${list.length} setting${list.length === 1 ? ' needs' : 's need'} fixing.`,
        };
        return render(request, reply, { values: shown, errors, flash, status: 422 });
      }
      throw error;
    }
    return seeOther(reply, '/admin/settings?saved=1');
  });

  app.post('/admin/settings/restart', { preHandler: ADMIN_FORM }, async (request, reply) => {
    const siteId = request.ui.site.id;
    const applied = await applyDesiredSettings(db, siteId);
    return seeOther(reply, `/admin/settings?applied=${applied.row.generation}&changed=${applied.changes.length}`);
  });
}
