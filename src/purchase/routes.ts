// The purchase API: what a billing system or reseller calls to provision and manage workspaces.
// Thin: the service does the work; every call is recorded in the audit log by the plugin.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requireBearer } from '../core/auth.js';
import { urlContext } from '../core/sites/presenters.js';
import { declareSecurity, problems } from '../http/openapi.js';
import { presentWorkspace } from './presenters.js';
import {
  ChangePlanBody,
  CreateWorkspaceBody,
  IdempotencyHeaders,
  PlanOut,
  ProvisionedWorkspaceOut,
  WorkspaceOut,
  WorkspaceParams,
} from './schemas.js';
import {
  bodyHash,
  cancelWorkspace,
  changePlan,
  claimKey,
  completeAnswer,
  getWorkspace,
  inviteOwner,
  listPlans,
  provisionWorkspace,
  replayedAnswer,
  setSuspended,
  type Workspace,
  type WorkspaceActor,
} from './service.js';

/** The purchase key of the call, which reaches only the workspaces it provisioned. */
const keyOf = (request: FastifyRequest): WorkspaceActor => ({ purchaseKey: request.credential!.id });

/** A preHandler: 401 without a live purchase key. */
async function requirePurchaseKey(request: FastifyRequest): Promise<void> {
  await requireBearer(request, 'purchase_key');
}
declareSecurity(requirePurchaseKey, [{ purchaseKey: [] }]);

export async function purchaseRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;
  const outbox = app.mailOutbox;
  const guarded = { preHandler: requirePurchaseKey };

  // Every node drops its copy of the site before the answer leaves: a trigger moved its cache
  // epoch, which the app announces after every write request.
  const present = (workspace: Workspace, request: FastifyRequest) => presentWorkspace(workspace, urlContext(request));

  app.get(
    '/plans',
    {
      schema: {
        tags: ['plans'],
        summary: 'Plans and the features each includes, from the plan matrix',
        response: { 200: Type.Array(PlanOut) },
      },
      ...guarded,
    },
    async () => listPlans(db),
  );

  app.post(
    '/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        summary:
          'Provision a site and its owner account; an existing account is offered the site and owns it once it accepts',
        headers: IdempotencyHeaders,
        body: CreateWorkspaceBody,
        response: { 201: ProvisionedWorkspaceOut, ...problems(409, 422) },
      },
      ...guarded,
    },
    async (request, reply) => {
      const credentialId = request.credential!.id;
      const key = request.headers['idempotency-key'];
      const hash = bodyHash(request.body);
      const replayed = (stored: { response: unknown }) =>
        reply
          .code(201)
          .header('idempotent-replayed', 'true')
          // Answers stored before owners could be pending had no such field.
          .send({ owner_pending: false, ...(stored.response as Omit<ProvisionedWorkspaceOut, 'owner_pending'>) });
      // Only created workspaces are stored: a refused call changed nothing and may simply be retried.
      // The replay answers the stored result, invitation included, and sends no second mail.
      if (key) {
        const replay = await replayedAnswer(db, credentialId, key, hash);
        if (replay) return replayed(replay);
      }
      const out = await db.transaction(async (tx) => {
        // A twin running at the same time is answered here, once the first call committed.
        const twin = key ? await claimKey(tx, credentialId, key, hash) : undefined;
        if (twin) return { twin };
        const provisioned = await provisionWorkspace(tx, credentialId, request.body);
        const workspace = presentWorkspace(provisioned, urlContext(request));
        const invitation = await inviteOwner(tx, provisioned, {
          enabled: outbox.enabled,
          portalOrigin: app.deps.config.publicUrl.origin,
          siteUrl: workspace.url,
        });
        const answer: ProvisionedWorkspaceOut = { ...workspace, invitation };
        if (key) await completeAnswer(tx, credentialId, key, { status: 201, response: answer });
        return { answer };
      });
      if (out.twin) return replayed(out.twin);
      if (out.answer.invitation !== 'not_sent_mail_disabled') outbox.drainSoon();
      return reply.code(201).send(out.answer);
    },
  );

  app.get(
    '/workspaces/:id',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'One workspace',
        params: WorkspaceParams,
        response: { 200: WorkspaceOut },
      },
      ...guarded,
    },
    async (request) => presentWorkspace(await getWorkspace(db, request.params.id, keyOf(request)), urlContext(request)),
  );

  app.patch(
    '/workspaces/:id',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'Change the plan; a downgrade gates features and deletes nothing',
        params: WorkspaceParams,
        body: ChangePlanBody,
        response: { 200: WorkspaceOut, ...problems(409, 422) },
      },
      ...guarded,
    },
    async (request) => present(await changePlan(db, request.params.id, keyOf(request), request.body.plan), request),
  );

  app.post(
    '/workspaces/:id/suspend',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'Suspend: the site answers 503 site_suspended on its hosts and APIs; data kept',
        params: WorkspaceParams,
        response: { 200: WorkspaceOut, ...problems(409) },
      },
      ...guarded,
    },
    async (request) => present(await setSuspended(db, request.params.id, keyOf(request), true), request),
  );

  app.post(
    '/workspaces/:id/resume',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'Resume a suspended workspace',
        params: WorkspaceParams,
        response: { 200: WorkspaceOut, ...problems(409) },
      },
      ...guarded,
    },
    async (request) => present(await setSuspended(db, request.params.id, keyOf(request), false), request),
  );

  app.delete(
    '/workspaces/:id',
    {
      schema: {
        tags: ['workspaces'],
        summary:
          'Cancel: the site answers 503 at once; its data is purged after the grace period (BLUME_CANCEL_GRACE_DAYS)',
        params: WorkspaceParams,
        response: { 200: WorkspaceOut },
      },
      ...guarded,
    },
    async (request) =>
      present(
        await db.transaction((tx) =>
          cancelWorkspace(tx, request.params.id, keyOf(request), app.deps.config.cancelGraceMs),
        ),
        request,
      ),
  );
}
