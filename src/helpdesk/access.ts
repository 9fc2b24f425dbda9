// Who is calling the Help desk API. Every route proves the community site the host names, then the
// caller: an API key of the site (`Authorization: Bearer blu_sk_...`, helpdesk scopes), the session
// of an account that manages the site, or a community member who is an agent or an admin, by forum
// token (`Authentication-Token`) or member session cookie (with the forum's CSRF rules for writes).
// Then the plan (`helpdesk_api`, Pro and above) and the route's scope.
// And who is a ticket's customer in the portal (`/support/tickets`): `requesterTicketsWhere`.
import { and, eq, exists, or, sql, type SQL } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, checkSameOrigin, sessionUser } from '../core/auth.js';
import { canManageSite } from '../core/sites/policy.js';
import type { SiteRow } from '../core/sites/tables.js';
import type { Executor } from '../db/client.js';
import { TOKEN_HEADER } from '../forum/access.js';
import { effectiveRole, findTokenMember, type ForumMemberRow } from '../forum/members.js';
import { refuseSuspended } from '../forum/moderation.js';
import { verifyCsrf } from '../http/csrf.js';
import { MEMBER_COOKIE, memberForSession } from '../forum/ui/sessions.js';
import { AppError } from '../http/errors.js';
import { findAgent, servedCategories } from './agents.js';
import { helpdeskScopeOf, requireScope, type HelpdeskCaller, type HelpdeskScope } from './policy.js';
import { helpdeskContacts, helpdeskHistory, helpdeskTickets, type TicketRow } from './tables.js';

const CSRF_HEADER = 'x-csrf-token';

interface HelpdeskContext {
  site: SiteRow;
  caller: HelpdeskCaller;
}

declare module 'fastify' {
  interface FastifyRequest {
    helpdesk: HelpdeskContext;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

function unauthorized(
  reply: FastifyReply,
  code: 'authentication_required' | 'invalid_token',
  detail: string,
): AppError {
  reply.header('WWW-Authenticate', 'Bearer realm="helpdesk"');
  return new AppError(code, detail);
}

/** The caller a community member is on the help desk: an agent, an admin, or refused (403 `not_an_agent`). */
export async function memberCaller(db: Executor, site: SiteRow, member: ForumMemberRow): Promise<HelpdeskCaller> {
  if (member.banned) throw new AppError('member_banned', 'This member is banned from the community.');
  refuseSuspended(member);
  const admin = effectiveRole(site, member) === 'admin';
  const agent = (await findAgent(db, site.id, member.id)) !== undefined;
  if (!admin && !agent)
    throw new AppError('not_an_agent', 'Only agents and admins of the community use the help desk API.');
  return {
    kind: 'member',
    id: member.id,
    admin,
    agent,
    categories: agent ? await servedCategories(db, member.id) : [],
  };
}

async function callerOf(request: FastifyRequest, reply: FastifyReply, site: SiteRow): Promise<HelpdeskCaller> {
  const db = request.server.deps.database.db;
  const key = bearerToken(request);
  if (key) {
    const credential = await request.server.services.credentials.verify(key, 'api_key');
    // A key of another site proves nothing here: the same answer as a wrong key.
    if (!credential || credential.siteId !== site.id)
      throw unauthorized(reply, 'invalid_token', 'The API key is invalid, revoked, or belongs to another site.');
    const scope = helpdeskScopeOf(credential.scopes);
    if (!scope)
      throw new AppError('scope_missing', 'The API key has no help desk scope (helpdesk-read or helpdesk-write).', {
        required_scope: 'helpdesk-read',
      });
    return { kind: 'api_key', id: credential.id, scope };
  }
  const token = header(request, TOKEN_HEADER);
  if (token) {
    const member = await findTokenMember(db, site.id, token);
    if (!member)
      throw unauthorized(
        reply,
        'invalid_token',
        'The forum token is invalid, revoked, or belongs to another community.',
      );
    return memberCaller(db, site, member);
  }
  const cookie = request.cookies[MEMBER_COOKIE];
  const session = cookie ? await memberForSession(db, site.id, cookie) : undefined;
  if (session) {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      verifyCsrf(request, site.id, session.id, header(request, CSRF_HEADER));
    return memberCaller(db, site, session.member);
  }
  const user = await sessionUser(request);
  if (user && canManageSite(user, site)) {
    checkSameOrigin(request);
    return { kind: 'account', id: user.id };
  }
  throw unauthorized(
    reply,
    'authentication_required',
    "Send an API key as `Authorization: Bearer blu_sk_...` or an agent's forum token in `Authentication-Token`.",
  );
}

/** preHandler for a route that needs `scope`. */
export function helpdeskAccess(scope: HelpdeskScope) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const target = request.target;
    const site = target.kind === 'site' ? await request.server.services.sites.get(target.site) : undefined;
    if (!site || site.kind !== 'community')
      throw new AppError('site_not_found', `No site with a help desk answers at ${request.hostname}.`);
    const caller = await callerOf(request, reply, site);
    await request.server.services.plans.require(site, 'helpdesk_api');
    requireScope(caller, scope);
    request.helpdesk = { site, caller };
  };
}

/** A member as a customer of the portal, and whether its address is proven (`confirmsAddresses`). */
export interface PortalCustomer {
  siteId: string;
  member: Pick<ForumMemberRow, 'id' | 'email' | 'emailConfirmed'>;
  /** The community confirms the addresses of members who sign up: a confirmed address is theirs. */
  addressesProven: boolean;
}

/**
 * The tickets a member follows in the portal, as a condition on helpdesk_tickets: the ones it opened
 * there (the history's `created` event names it), and every ticket whose requester address is the
 * member's verified address, however it came (the API, mail, an agent). An address counts once the
 * member confirmed it and only where the community confirms addresses; typed alone it proves nothing.
 */
export function requesterTicketsWhere(db: Executor, customer: PortalCustomer): SQL {
  const opened = db
    .select({ one: sql`1` })
    .from(helpdeskHistory)
    .where(
      and(
        eq(helpdeskHistory.ticketId, helpdeskTickets.id),
        eq(helpdeskHistory.event, 'created'),
        eq(helpdeskHistory.actorKind, 'member'),
        eq(helpdeskHistory.actorId, customer.member.id),
      ),
    );
  const verified = customer.addressesProven && customer.member.emailConfirmed;
  const requested = db
    .select({ one: sql`1` })
    .from(helpdeskContacts)
    .where(
      and(
        eq(helpdeskContacts.id, helpdeskTickets.requesterId),
        eq(helpdeskContacts.siteId, customer.siteId),
        eq(helpdeskContacts.email, customer.member.email.trim().toLowerCase()),
      ),
    );
  return and(
    eq(helpdeskTickets.siteId, customer.siteId),
    verified ? or(exists(opened), exists(requested)) : exists(opened),
  )!;
}

/** A ticket of the customer by number; another requester's ticket is not found, exactly as a missing one. */
export async function findRequesterTicket(db: Executor, customer: PortalCustomer, number: string): Promise<TicketRow> {
  const [ticket] = /^\d{1,9}$/.test(number)
    ? await db
        .select()
        .from(helpdeskTickets)
        .where(and(requesterTicketsWhere(db, customer), eq(helpdeskTickets.number, Number(number))))
    : [];
  if (!ticket) throw new AppError('ticket_not_found', `No ticket #${number} of yours.`);
  return ticket;
}
