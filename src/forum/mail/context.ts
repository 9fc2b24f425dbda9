// Where a community's mail says it comes from, taken from the request that causes the mail: links
// use the origin the client reached (scheme and host as a trusted proxy reports them, as the feeds
// do; docs/decisions/0014-forwarded-urls.md), the sender is the instance's MAIL_DEFAULT_SENDER when
// the owner set one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { siteOrigin } from '../../http/hosts.js';
import type { InstanceSettings } from '../../core/settings/allowlist.js';
import type { SiteRow } from '../../core/sites/tables.js';
import type { MailOutbox } from '../../jobs/mail-outbox.js';
import { parseBoolean } from '../../config/index.js';
import type { MailContext } from './messages.js';
import type { ReplyMailOptions } from './service.js';

/**
 * Whether the community asks a member who signs up to confirm the address by a mailed link: only
 * with mail going out, unless it turns confirmation off (FORUM_EMAIL_CONFIRMATION). Otherwise a
 * sign-up is confirmed as typed, so `email_confirmed` proves nothing of the address.
 */
export function confirmsAddresses(outbox: MailOutbox, settings: InstanceSettings): boolean {
  return outbox.enabledFor(settings) && (parseBoolean(settings.values.FORUM_EMAIL_CONFIRMATION ?? '') ?? true);
}

/** `scheme://host[:port]` of the site as this request reached it. */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export async function mailContext(request: FastifyRequest, site: SiteRow): Promise<MailContext> {
  return contextAt(request.server, site, requestOrigin(request));
}

/**
 * For mail no request causes (the digest): the site's origin as configured, BLUME_PUBLIC_URL in
 * single mode, else `<site>.<BLUME_SITES_DOMAIN>` under its scheme and port. An instance behind a
 * TLS proxy sets BLUME_PUBLIC_URL to its https URL, so these links are https too.
 */
export function configuredMailContext(app: FastifyInstance, site: SiteRow): Promise<MailContext> {
  const { config, mode } = app.deps;
  const base = {
    protocol: config.publicUrl.protocol === 'https:' ? ('https:' as const) : ('http:' as const),
    port: config.publicUrl.port,
  };
  return contextAt(
    app,
    site,
    mode === 'single' ? config.publicUrl.origin : siteOrigin(base, config.sitesDomain, site.id),
  );
}

async function contextAt(app: FastifyInstance, site: SiteRow, origin: string): Promise<MailContext> {
  const settings = await app.instanceSettings.applied(site.id);
  return {
    origin,
    title: settings.values.FORUM_TITLE?.trim() || site.id,
    from: settings.values.MAIL_DEFAULT_SENDER?.trim() || undefined,
  };
}

/** What `createPost` needs to queue reply notifications, or undefined when this server sends no mail. */
export async function replyMailOptions(request: FastifyRequest, site: SiteRow): Promise<ReplyMailOptions | undefined> {
  if (!request.server.mailOutbox.enabledFor(await request.server.instanceSettings.applied(site.id))) return undefined;
  return { ctx: await mailContext(request, site), secretKey: request.server.deps.config.secretKey };
}
