// A community site's actions in the console: save instance settings (the settings API's rules and
// masking), restart to apply them on every node, mint and revoke API keys with scopes. Each comes back
// to the site's page saying what happened; a refusal is shown there in words and changes nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_SCOPES } from '../core/credentials/schemas.js';
import { mintCredential } from '../core/credentials/service.js';
import { SECRET_MASK, SETTING_NAMES } from '../core/settings/allowlist.js';
import { applyDesiredSettings, loadSettings, updateDesiredSettings } from '../core/settings/service.js';
import { authorizeSite } from '../core/sites/policy.js';
import { findSite } from '../core/sites/service.js';
import type { SiteRow } from '../core/sites/tables.js';
import { AppError } from '../http/errors.js';
import { field, seeOther } from '../http/forms.js';
import { isSecret } from './community-views.js';
import { loadConsole, signedIn } from './context.js';
import { attempt } from './page.js';
import { sendSitePage } from './site-page.js';
import { shownOnce } from './static-views.js';

type SiteParams = { Params: { id: string } };

export async function communitySiteRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  const opts = { preHandler: loadConsole };

  const communitySite = async (request: FastifyRequest<SiteParams>): Promise<SiteRow> => {
    const { site } = await authorizeSite(
      db,
      signedIn(request),
      await findSite(db, request.params.id),
      request.params.id,
    );
    if (site.kind !== 'community')
      throw new AppError(
        'site_not_community',
        `Site "${site.id}" is a ${site.kind} site; instance settings and API keys belong to community sites.`,
      );
    return site;
  };

  app.post<SiteParams>('/sites/:id/settings', opts, async (request, reply) => {
    const site = await communitySite(request);
    // Every allowlisted name is on the form; an empty field unsets it, except a secret, which an empty
    // field keeps (it is never sent to the browser) and only its "remove" box unsets.
    const stored = (await loadSettings(db, site.id)).desired;
    const changes: Record<string, string> = {};
    for (const name of SETTING_NAMES) {
      const value = field(request, name, 2000);
      if (value === undefined) throw new AppError('invalid_setting', `${name} is longer than 2000 characters.`);
      const keep = isSecret(name) && value === '' && name in stored && field(request, `clear:${name}`, 1) !== '1';
      changes[name] = keep ? SECRET_MASK : value;
    }
    return attempt(
      async () => {
        await updateDesiredSettings(db, site.id, changes, app.deps.config.secretKey);
        return seeOther(reply, `/sites/${site.id}?done=settings#settings-h`);
      },
      (error) =>
        sendSitePage(
          request,
          reply,
          site,
          { message: { kind: 'error', text: `Nothing was saved: ${error.message}` } },
          error.status,
        ),
    );
  });

  app.post<SiteParams>('/sites/:id/settings/restart', opts, async (request, reply) => {
    const site = await communitySite(request);
    const applied = await applyDesiredSettings(db, site.id);
    return seeOther(reply, `/sites/${site.id}?done=restarted&count=${applied.changes.length}#settings-h`);
  });

  app.post<SiteParams>('/sites/:id/api-keys', opts, async (request, reply) => {
    const site = await communitySite(request);
    const name = field(request, 'name', 100)?.trim() ?? '';
    const scopes = API_KEY_SCOPES.filter((scope) => field(request, `scope:${scope}`, 1) === '1');
    const refuse = (text: string) => sendSitePage(request, reply, site, { message: { kind: 'error', text } }, 422);
    if (!name) return refuse('Give the key a name (1 to 100 characters), such as website.');
    if (scopes.length === 0) return refuse('Choose at least one scope: what the key may do.');
    const minted = await mintCredential(db, {
      kind: 'api_key',
      siteId: site.id,
      subjectId: request.console.user!.id,
      name,
      scopes,
    });
    return sendSitePage(
      request,
      reply,
      site,
      { shown: shownOnce(`API key "${name}" (${scopes.join(', ')}) was minted.`, minted.token, 'new-key') },
      201,
    );
  });

  app.post<{ Params: { id: string; key: string } }>('/sites/:id/api-keys/:key/revoke', opts, async (request, reply) => {
    const site = await communitySite(request);
    if (!(await app.services.credentials.revoke(request.params.key, { kind: 'api_key', siteId: site.id }))) {
      return sendSitePage(
        request,
        reply,
        site,
        { message: { kind: 'error', text: 'That API key does not exist or was revoked already.' } },
        404,
      );
    }
    return seeOther(reply, `/sites/${site.id}?done=key-revoked#keys-h`);
  });
}
