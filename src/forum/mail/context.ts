// Where a community's mail says it comes from, taken from the request that causes the mail: links
// use the origin the client reached (scheme and host as a trusted proxy reports them, as the feeds
// do; docs/decisions/0014-forwarded-urls.md), the sender is the instance's MAIL_DEFAULT_SENDER when
// the owner set one.
import type { FastifyRequest } from 'fastify';
import type { SiteRow } from '../../core/sites/tables.js';
import type { MailContext } from './messages.js';
import type { ReplyMailOptions } from './service.js';

/** `scheme://host[:port]` of the site as this request reached it. */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export async function mailContext(request: FastifyRequest, site: SiteRow): Promise<MailContext> {
  const settings = await request.server.instanceSettings.applied(site.id);
  return {
    origin: requestOrigin(request),
    title: settings.values.FORUM_TITLE?.trim() || site.id,
    from: settings.values.MAIL_DEFAULT_SENDER?.trim() || undefined,
  };
}

/** What `createPost` needs to queue reply notifications, or undefined when this server sends no mail. */
export async function replyMailOptions(request: FastifyRequest, site: SiteRow): Promise<ReplyMailOptions | undefined> {
  if (!request.server.services.mailOutbox.enabled) return undefined;
  return { ctx: await mailContext(request, site), secretKey: request.server.deps.config.secretKey };
}
