// Who is looking at a page: the community site the host names, its applied settings, and the member
// the session cookie proves (or a guest). The viewer is the same `Viewer` the Forum API builds, so
// every page goes through the one visibility policy.
import { eq, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { editorExists } from '../../cms/editors.js';
import { parseBoolean } from '../../config/index.js';
import type { InstanceSettings } from '../../core/settings/allowlist.js';
import type { SiteRow } from '../../core/sites/tables.js';
import { preparedStatement } from '../../db/prepared.js';
import { csrfToken, verifyCsrf } from '../../http/csrf.js';
import { AppError } from '../../http/errors.js';
import { agentExists } from '../../helpdesk/agents.js';
import { viewerFor, type CommunityVersions } from '../members.js';
import { activeSuspension, hasUnacknowledgedWarnings, listWarnings } from '../moderation.js';
import { unreadBadge } from '../notifications.js';
import { GUEST, isAdmin, visibilityClass, type MemberViewer, type Viewer } from '../policy.js';
import { reviewTrust, trustRules } from '../trust.js';
import { forumMembers, type ForumModActionRow } from '../tables.js';
import { clearMemberCookie, MEMBER_COOKIE, memberForSession } from './sessions.js';

export interface UiContext {
  site: SiteRow;
  settings: InstanceSettings;
  viewer: Viewer;
  sessionId: string | undefined;
  /** A member's: the community's versions, read with its session (cached pages, decision 0110). */
  versions?: CommunityVersions;
  /** Title of the community: FORUM_TITLE, or the site id. */
  title: string;
  registrationOpen: boolean;
  /** The CSRF token forms on this page carry. */
  csrf: string;
  /** The member's unread notifications, for the header, counted up to BADGE_LIMIT + 1; read for pages (GET) only. */
  unreadNotifications?: number;
  /** The header links to the help desk inbox: the member is an agent or admin on a plan with it (pages only). */
  deskLink?: boolean;
  /** The header links to the customer portal at /support: the site's plan has the help desk, and the member has no desk link (pages only). */
  supportLink?: boolean;
  /** The header links to the content editor: the member is a content editor, not an admin (pages only). */
  contentLink?: boolean;
  /** The member's warnings it has not acknowledged, shown on top of pages (GET only). */
  warnings?: ForumModActionRow[];
}

declare module 'fastify' {
  interface FastifyRequest {
    ui: UiContext;
  }
}

async function communitySite(request: FastifyRequest): Promise<{ site: SiteRow; settings: InstanceSettings }> {
  const target = request.target;
  const site = target.kind === 'site' ? await request.server.services.sites.get(target.site) : undefined;
  if (!site || site.kind !== 'community')
    throw new AppError('site_not_found', `No community answers at ${request.hostname}.`);
  return { site, settings: await request.server.instanceSettings.applied(site.id) };
}

function titleOf(site: SiteRow, settings: InstanceSettings): string {
  return settings.values.FORUM_TITLE?.trim() || site.id;
}

/**
 * preHandler of shared, cacheable answers (feeds): the site as a guest sees it, reading no cookie
 * and setting none.
 */
export async function loadGuestUi(request: FastifyRequest): Promise<void> {
  const { site, settings } = await communitySite(request);
  request.ui = {
    site,
    settings,
    viewer: GUEST,
    sessionId: undefined,
    title: titleOf(site, settings),
    registrationOpen: false,
    csrf: '',
  };
}

/** preHandler of every page: loads the site and the viewer; a banned or suspended member's session ends. */
export async function loadUi(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { site, settings } = await communitySite(request);
  const db = request.server.deps.database.db;
  let viewer: Viewer = GUEST;
  let sessionId: string | undefined;
  let versions: CommunityVersions | undefined;
  const cookie = request.cookies[MEMBER_COOKIE];
  if (cookie) {
    const session = await memberForSession(db, site.id, cookie);
    if (session && !session.member.banned && !activeSuspension(session.member)) {
      await reviewTrust(db, trustRules(settings), session.member);
      viewer = viewerFor(site, session.member);
      sessionId = session.id;
      versions = session.versions;
    } else {
      clearMemberCookie(reply);
    }
  }
  request.ui = {
    site,
    settings,
    viewer,
    sessionId,
    versions,
    title: titleOf(site, settings),
    // Sign-up is open unless the owner turns it off: a community without members is no community.
    registrationOpen: parseBoolean(settings.values.REGISTRATION_OPEN ?? '') ?? true,
    csrf: '',
  };
  request.ui.csrf = csrfToken(request, reply, site.id, sessionId);
  if (request.method === 'GET')
    request.ui.supportLink = await request.server.services.plans.includes(site.plan, 'helpdesk_api');
  // A form post mostly answers with a redirect: its header would be read for nothing.
  if (viewer.kind === 'member' && request.method === 'GET')
    Object.assign(request.ui, await headerFacts(request, site, viewer));
}

type HeaderFacts = Required<Pick<UiContext, 'unreadNotifications' | 'deskLink' | 'contentLink' | 'warnings'>>;

interface HeaderVariant {
  viewer: MemberViewer;
  /** The site's plan has the help desk: the header asks whether the member is an agent. */
  desk: boolean;
}

/**
 * What the header of a member's page shows, as one prepared statement: every page pays for it, and
 * each statement costs a round trip, and an unprepared one its planning (bench/README.md, "Forum
 * member reads"). An admin has the whole admin area: no agent or editor link to look up.
 */
const headerStatement = preparedStatement(
  'forum_ui_header',
  (db, { viewer, desk }: HeaderVariant) => {
    const siteId = sql.placeholder('siteId');
    const memberId = sql.placeholder('memberId');
    const admin = isAdmin(viewer);
    return db
      .select({
        badge: unreadBadge(db, siteId, memberId, viewer, sql.placeholder('badgeVersions')),
        warned: hasUnacknowledgedWarnings(siteId, memberId),
        agent: desk && !admin ? agentExists(siteId, memberId) : sql<boolean>`false`,
        editor: admin ? sql<boolean>`false` : editorExists(siteId, memberId),
      })
      .from(forumMembers)
      .where(eq(forumMembers.id, memberId));
  },
  ({ viewer, desk }) => `${isAdmin(viewer) ? 'admin' : visibilityClass(viewer)}_${desk ? 'desk' : 'nodesk'}`,
);

/** The header's facts for a member's page; warnings are rare, their rows are read only when there are some. */
async function headerFacts(request: FastifyRequest, site: SiteRow, viewer: MemberViewer): Promise<HeaderFacts> {
  const db = request.server.deps.database.db;
  const desk = await request.server.services.plans.includes(site.plan, 'helpdesk_api');
  const badge = request.server.forum.counts.lookup(site.id, viewer, 'badge');
  const [row] = await headerStatement(db, { viewer, desk }).execute({
    siteId: site.id,
    memberId: viewer.member.id,
    badgeVersions: badge.versions,
  });
  if (!row) throw new AppError('member_not_found', 'The member is gone.');
  return {
    unreadNotifications: badge.resolve(row.badge),
    warnings: row.warned ? await listWarnings(db, site.id, viewer, true) : [],
    deskLink: desk && (isAdmin(viewer) || row.agent),
    contentLink: row.editor,
  };
}

/** preHandler of every form post, after `loadUi`. */
export async function checkForm(request: FastifyRequest): Promise<void> {
  const form = request.body as Record<string, string> | undefined;
  verifyCsrf(request, request.ui.site.id, request.ui.sessionId, form?._csrf);
}
