// Who is calling the Forum API. Every route first proves the community site and its plan; then a
// forum token (`Authentication-Token`) names the member, or, without one, the caller is a guest —
// allowed only when the applied settings turn public read on AND name CORS origins (spec section 4).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InstanceSettings } from '../core/settings/allowlist.js';
import type { SiteRow } from '../core/sites/tables.js';
import { AppError } from '../http/errors.js';
import { readTokenMember, viewerFor, type CommunityVersions } from './members.js';
import { refuseSuspended } from './moderation.js';
import { reviewTrust, trustRules } from './trust.js';
import { GUEST, type MemberViewer, type Viewer } from './policy.js';
import type { VisibleTopic } from './topics.js';

export const TOKEN_HEADER = 'authentication-token';

interface ForumContext {
  site: SiteRow;
  settings: InstanceSettings;
  viewer: Viewer;
  /** With a member's token: the community's versions, read with the member (`readTokenMember`). */
  versions?: CommunityVersions;
  /** The topic a route's ETag was made of (`topicPostsTag`), read before the handler. */
  topic?: VisibleTopic;
}

declare module 'fastify' {
  interface FastifyRequest {
    forum: ForumContext;
  }
}

function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers[TOKEN_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  return value?.trim() || undefined;
}

function challenge(reply: FastifyReply): void {
  reply.header('WWW-Authenticate', 'Authentication-Token realm="forum"');
}

/** The community site the host names, gated on the plan's `forum_api` feature. */
async function loadSite(request: FastifyRequest): Promise<Pick<ForumContext, 'site' | 'settings'>> {
  const target = request.target;
  const site = target.kind === 'site' ? await request.server.services.sites.get(target.site) : undefined;
  if (!site || site.kind !== 'community')
    throw new AppError('site_not_found', `No community answers at ${request.hostname}.`);
  await request.server.services.plans.require(site, 'forum_api');
  return { site, settings: await request.server.instanceSettings.applied(site.id) };
}

async function memberFromToken(
  request: FastifyRequest,
  reply: FastifyReply,
  site: SiteRow,
  settings: InstanceSettings,
  token: string,
): Promise<Pick<ForumContext, 'viewer' | 'versions'>> {
  const found = await readTokenMember(request.server.deps.database.db, site.id, token);
  if (!found) {
    challenge(reply);
    throw new AppError('invalid_token', 'The forum token is invalid, revoked, or belongs to another community.');
  }
  const { member, versions } = found;
  if (member.banned) throw new AppError('member_banned', 'This member is banned from the community.');
  // A suspension refuses the member's existing tokens, reads included, until it ends.
  refuseSuspended(member);
  await reviewTrust(request.server.deps.database.db, trustRules(settings), member);
  return { viewer: viewerFor(site, member) as MemberViewer, versions };
}

/** preHandler: a member with a token, or a guest when anonymous reads are enabled. */
export async function forumReader(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const base = await loadSite(request);
  const token = presentedToken(request);
  if (token) {
    request.forum = { ...base, ...(await memberFromToken(request, reply, base.site, base.settings, token)) };
    return;
  }
  if (!base.settings.forumApiPublicRead || base.settings.corsOrigins.length === 0) {
    challenge(reply);
    throw new AppError(
      'authentication_required',
      'Send a forum token in the `Authentication-Token` header; anonymous reads are not enabled here.',
    );
  }
  request.forum = { ...base, viewer: GUEST };
}

/** preHandler: a member with a token. */
export async function forumMember(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const base = await loadSite(request);
  const token = presentedToken(request);
  if (!token) {
    challenge(reply);
    throw new AppError('authentication_required', 'Send a forum token in the `Authentication-Token` header.');
  }
  request.forum = { ...base, ...(await memberFromToken(request, reply, base.site, base.settings, token)) };
}

/** preHandler: anyone, on a community site whose plan has the Forum API (token minting, waitlist). */
export async function forumSite(request: FastifyRequest): Promise<void> {
  request.forum = { ...(await loadSite(request)), viewer: GUEST };
}
