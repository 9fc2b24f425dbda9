// How the desk is set up: `/categories` (CRUD), `/agents` (with their open-ticket workload) and
// `/sla-policies` (targets per priority). Reads are open to every help desk caller; changes are the
// admins', except that an agent may change their own availability.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { findMember } from '../forum/members.js';
import { AppError } from '../http/errors.js';
import { declareSecurity, problems } from '../http/openapi.js';
import { helpdeskAccess } from './access.js';
import { findAgent, listAgents, makeAgent, updateAgent } from './agents.js';
import { createCategory, deleteCategory, getCategory, listCategories, updateCategory } from './categories.js';
import { actorOf, requireAdmin, type HelpdeskCaller } from './policy.js';
import { presentAgent, presentCategory, presentSlaPolicy } from './presenters.js';
import {
  AgentOut,
  AgentPatch,
  CategoryBody,
  CategoryOut,
  CategoryPatch,
  helpdeskSecurity,
  IdParams,
  Priority,
  SlaPolicyBody,
  SlaPolicyOut,
} from './schemas.js';
import { listSlaPolicies, setSlaPolicy } from './sla.js';

const read = declareSecurity(helpdeskAccess('helpdesk-read'), helpdeskSecurity);
const write = declareSecurity(helpdeskAccess('helpdesk-write'), helpdeskSecurity);

/** Admins change anything about an agent; an agent only their own availability. */
function authorizeAgentChange(caller: HelpdeskCaller, agentId: string, body: AgentPatch): void {
  const own = caller.kind === 'member' && caller.id === agentId;
  if (own && body.capacity === undefined && body.category_ids === undefined) return;
  requireAdmin(caller);
}

export async function deskRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.get(
    '/categories',
    {
      schema: { tags: ['categories'], summary: 'List categories', response: { 200: Type.Array(CategoryOut) } },
      preHandler: read,
    },
    async (request) => (await listCategories(db, request.helpdesk.site.id)).map(presentCategory),
  );

  app.post(
    '/categories',
    {
      schema: {
        tags: ['categories'],
        summary: 'Create a category (admins)',
        body: CategoryBody,
        response: { 201: CategoryOut, ...problems(409) },
      },
      preHandler: write,
    },
    async (request, reply) => {
      requireAdmin(request.helpdesk.caller);
      return reply.code(201).send(presentCategory(await createCategory(db, request.helpdesk.site.id, request.body)));
    },
  );

  app.get(
    '/categories/:id',
    {
      schema: { tags: ['categories'], summary: 'Read a category', params: IdParams, response: { 200: CategoryOut } },
      preHandler: read,
    },
    async (request) => presentCategory(await getCategory(db, request.helpdesk.site.id, request.params.id)),
  );

  app.patch(
    '/categories/:id',
    {
      schema: {
        tags: ['categories'],
        summary: 'Rename or describe a category (admins)',
        params: IdParams,
        body: CategoryPatch,
        response: { 200: CategoryOut, ...problems(409) },
      },
      preHandler: write,
    },
    async (request) => {
      requireAdmin(request.helpdesk.caller);
      return presentCategory(await updateCategory(db, request.helpdesk.site.id, request.params.id, request.body));
    },
  );

  app.delete(
    '/categories/:id',
    {
      schema: {
        tags: ['categories'],
        summary: 'Delete a category; its tickets keep going without one (admins)',
        params: IdParams,
        response: { 204: Type.Null() },
      },
      preHandler: write,
    },
    async (request, reply) => {
      requireAdmin(request.helpdesk.caller);
      await deleteCategory(db, request.helpdesk.site.id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/agents',
    {
      schema: {
        tags: ['agents'],
        summary: 'List agents with their open-ticket workload',
        response: { 200: Type.Array(AgentOut) },
      },
      preHandler: read,
    },
    async (request) => {
      const siteId = request.helpdesk.site.id;
      const agents = await listAgents(db, siteId);
      return Promise.all(
        agents.map(async (view) => presentAgent(view, (await findMember(db, siteId, view.agent.memberId))!)),
      );
    },
  );

  app.patch(
    '/agents/:id',
    {
      schema: {
        tags: ['agents'],
        summary:
          "Change an agent's capacity, categories or availability; an admin naming a member who is not an agent makes them one",
        params: IdParams,
        body: AgentPatch,
        response: { 200: AgentOut },
      },
      preHandler: write,
    },
    async (request) => {
      const { site, caller } = request.helpdesk;
      const id = request.params.id;
      authorizeAgentChange(caller, id, request.body);
      const member = await findMember(db, site.id, id);
      if (!member) throw new AppError('agent_not_found', `No member "${id}" in this community.`);
      const change = {
        capacity: request.body.capacity,
        available: request.body.available,
        categoryIds: request.body.category_ids,
      };
      if (!(await findAgent(db, site.id, id))) return presentAgent(await makeAgent(db, site.id, id, change), member);
      return presentAgent(await updateAgent(db, site.id, id, change, actorOf(caller)), member);
    },
  );

  app.get(
    '/sla-policies',
    {
      schema: { tags: ['sla'], summary: 'SLA targets per priority', response: { 200: Type.Array(SlaPolicyOut) } },
      preHandler: read,
    },
    async (request) => (await listSlaPolicies(db, request.helpdesk.site.id)).map(presentSlaPolicy),
  );

  app.put(
    '/sla-policies/:priority',
    {
      schema: {
        tags: ['sla'],
        summary: 'Set the targets of a priority (tickets opened from now on)',
        params: Type.Object({ priority: Priority }),
        body: SlaPolicyBody,
        response: { 200: SlaPolicyOut },
      },
      preHandler: write,
    },
    async (request) => {
      requireAdmin(request.helpdesk.caller);
      const targets = {
        firstResponseMinutes: request.body.first_response_minutes,
        resolutionMinutes: request.body.resolution_minutes,
      };
      await setSlaPolicy(db, request.helpdesk.site.id, request.params.priority, targets);
      return presentSlaPolicy({ priority: request.params.priority, ...targets });
    },
  );
}
