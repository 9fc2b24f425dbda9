// A site's team under /api/sites/{id} (decision 0142): members with their roles (any member reads),
// invitations by e-mail and removals (owners), and accepting an invitation with its link's token.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requireSession } from '../core/auth.js';
import { authorizeSite } from '../core/sites/policy.js';
import { presentInvitation, presentMember } from '../core/sites/presenters.js';
import {
  AcceptedOut,
  AcceptInvitationBody,
  InvitationBody,
  InvitationCreatedOut,
  InvitationOut,
  InvitationParams,
  MemberOut,
  MemberParams,
  SiteParams,
} from '../core/sites/schemas.js';
import { findSite } from '../core/sites/service.js';
import type { SiteRole } from '../core/sites/tables.js';
import { invitationUrl, sendTeamInvitation } from '../core/sites/team-mail.js';
import {
  acceptInvitation,
  findInvitation,
  inviteMember,
  listInvitations,
  listTeam,
  removeMember,
  revokeInvitation,
} from '../core/sites/team.js';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';

export async function teamRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;
  const outbox = app.mailOutbox;

  const siteFor = async (request: FastifyRequest & { params: { id: string } }, needed: SiteRole) => {
    const id = request.params.id;
    return (await authorizeSite(db, request.user!, await findSite(db, id), id, needed)).site;
  };

  app.get(
    '/sites/:id/members',
    {
      schema: {
        tags: ['team'],
        summary: "The site's team: its owner of record first, then members by when they joined",
        params: SiteParams,
        response: { 200: Type.Array(MemberOut) },
      },
      preHandler: requireSession,
    },
    async (request) => (await listTeam(db, await siteFor(request, 'viewer'))).map(presentMember),
  );
  app.delete(
    '/sites/:id/members/:user_id',
    {
      schema: {
        tags: ['team'],
        summary: 'Remove someone from the team (owners); 409 last_owner for the last owner',
        params: MemberParams,
        response: { 204: Type.Null(), ...problems(409) },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      const site = await siteFor(request, 'owner');
      await removeMember(db, site.id, request.params.user_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/sites/:id/invitations',
    {
      schema: {
        tags: ['team'],
        summary: 'Invitations not yet accepted (owners)',
        params: SiteParams,
        response: { 200: Type.Array(InvitationOut) },
      },
      preHandler: requireSession,
    },
    async (request) => (await listInvitations(db, (await siteFor(request, 'owner')).id)).map(presentInvitation),
  );
  app.post(
    '/sites/:id/invitations',
    {
      schema: {
        tags: ['team'],
        summary: 'Invite an e-mail address onto the team with a role (owners); the link goes out by mail',
        params: SiteParams,
        body: InvitationBody,
        response: { 201: InvitationCreatedOut, ...problems(409) },
      },
      preHandler: requireSession,
      config: { rateLimit: { max: 30, timeWindow: 3_600_000 } },
    },
    async (request, reply) => {
      const site = await siteFor(request, 'owner');
      const portalOrigin = app.deps.config.publicUrl.origin;
      const mailed = outbox.enabled;
      const { invitation, token } = await db.transaction(async (tx) => {
        const invited = await inviteMember(tx, site, request.user!, request.body);
        if (mailed) await sendTeamInvitation(tx, portalOrigin, invited.invitation, invited.token, request.user!);
        return invited;
      });
      if (mailed) outbox.drainSoon();
      return reply.code(201).send({
        ...presentInvitation(invitation),
        mailed,
        accept_url: mailed ? null : invitationUrl(portalOrigin, token),
      });
    },
  );
  app.delete(
    '/sites/:id/invitations/:invitation_id',
    {
      schema: {
        tags: ['team'],
        summary: 'Withdraw an invitation (owners); its link stops working',
        params: InvitationParams,
        response: { 204: Type.Null() },
      },
      preHandler: requireSession,
    },
    async (request, reply) => {
      await revokeInvitation(db, (await siteFor(request, 'owner')).id, request.params.invitation_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/invitations/accept',
    {
      schema: {
        tags: ['team'],
        summary: "Join a site's team with an invitation's token, as the account it was sent to",
        body: AcceptInvitationBody,
        response: { 200: AcceptedOut, ...problems(403, 404) },
      },
      preHandler: requireSession,
    },
    async (request) => {
      const found = await findInvitation(db, request.body.token);
      if (!found) throw new AppError('invitation_not_found', 'The invitation was used, withdrawn or has expired.');
      return { site: found.site.id, role: await acceptInvitation(db, found, request.user!) };
    },
  );
}
