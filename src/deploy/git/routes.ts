// Repository connection (`PUT/GET/DELETE /api/deploy/{id}/github`, deploy token) and the push
// webhook `POST /api/deploy/{id}/github/webhook`, which carries no token: its proof is the HMAC
// signature over the raw body, so that route reads the body as bytes.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../http/errors.js';
import { requireSiteDeployToken } from '../policy.js';
import { DeploySiteParams } from '../schemas.js';
import { ConnectedOut, ConnectionBody, ConnectionOut, WebhookOut } from './schemas.js';
import {
  connectRepository,
  disconnectRepository,
  findConnection,
  handleWebhook,
  type WebhookOutcome,
} from './service.js';
import type { GithubConnectionRow } from './tables.js';
import { problems } from '../../http/openapi.js';

const security = [{ deployToken: [] }];
/** GitHub caps webhook payloads at 25 MB. */
const WEBHOOK_BODY_LIMIT = 25 * 1024 * 1024;

/** The webhook address is the configured public URL: the repository host calls it, not the client. */
export function webhookUrl(publicUrl: URL, siteId: string): string {
  return `${publicUrl.origin}/api/deploy/${siteId}/github/webhook`;
}

function presentConnection(row: GithubConnectionRow, publicUrl: URL) {
  return {
    repository: row.repository,
    branch: row.branch,
    path: row.path,
    kind: row.kind,
    webhook_url: webhookUrl(publicUrl, row.siteId),
  };
}

function presentOutcome(outcome: WebhookOutcome) {
  switch (outcome.status) {
    case 'pong':
      return { status: outcome.status };
    case 'ignored':
      return { status: outcome.status, reason: outcome.reason };
    case 'duplicate':
      return { status: outcome.status, reason: 'this delivery was handled already', build_id: outcome.buildId };
    case 'queued':
      return { status: outcome.status, build_id: outcome.buildId, promotable: outcome.promotable };
  }
}

async function webhookRoute(fastify: FastifyInstance): Promise<void> {
  // The signature covers the exact bytes sent; parsing first would lose them.
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps.database;
  app.post(
    '/api/deploy/:id/github/webhook',
    {
      schema: {
        tags: ['github'],
        summary: 'Push webhook of the connected repository (GitHub format; no token, signed with the webhook secret)',
        description:
          'Verifies `X-Hub-Signature-256` over the raw JSON body. `ping` answers 200 `pong`; a `push` queues a build (202 `queued`) of the pushed commit: promotable for the connected branch, preview-only otherwise. Other events and tag pushes answer 202 `ignored`; a repeated `X-GitHub-Delivery`, or a push the site received already under another id (same ref, `before` and `after` in the signed body, within 30 days), answers 200 `duplicate`.',
        params: DeploySiteParams,
        security: [{ webhookSignature: [] }],
        response: { 200: WebhookOut, 202: WebhookOut, ...problems(401, 409, 422) },
      },
    },
    async (request, reply) => {
      const header = (name: string): string | undefined => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      if (!Buffer.isBuffer(request.body))
        throw new AppError('unsupported_media_type', 'Send the webhook as application/json.');
      const outcome = await handleWebhook(db, app.deps.config.secretKey, request.params.id, {
        event: header('x-github-event'),
        delivery: header('x-github-delivery'),
        signature: header('x-hub-signature-256'),
        body: request.body,
      });
      if (outcome.status === 'queued') app.deploy.builds.wake();
      return reply
        .code(outcome.status === 'queued' || outcome.status === 'ignored' ? 202 : 200)
        .send(presentOutcome(outcome));
    },
  );
}

export async function githubRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.deps.database;
  const { publicUrl, secretKey } = app.deps.config;

  app.put(
    '/api/deploy/:id/github',
    {
      schema: {
        tags: ['github'],
        summary:
          'Connect a repository and branch for push-to-build (destructive: replaces any connection and its webhook secret)',
        description:
          'Answers the webhook URL and secret to configure on the repository (content type application/json, push events). The secret is shown only here.',
        security,
        params: DeploySiteParams,
        body: ConnectionBody,
        response: { 200: ConnectedOut, ...problems(422) },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request) => {
      const { connection, secret } = await connectRepository(db, secretKey, request.params.id, request.body);
      return { ...presentConnection(connection, publicUrl), webhook_secret: secret };
    },
  );

  app.get(
    '/api/deploy/:id/github',
    {
      schema: {
        tags: ['github'],
        summary: 'The connected repository (without its secret)',
        security,
        params: DeploySiteParams,
        response: { 200: ConnectionOut },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request) => {
      const connection = await findConnection(db, request.params.id);
      if (!connection)
        throw new AppError('github_not_connected', `Site "${request.params.id}" has no connected repository.`);
      return presentConnection(connection, publicUrl);
    },
  );

  app.delete(
    '/api/deploy/:id/github',
    {
      schema: {
        tags: ['github'],
        summary: 'Disconnect the repository; later pushes are refused',
        security,
        params: DeploySiteParams,
        response: { 204: Type.Null() },
      },
      preHandler: requireSiteDeployToken,
    },
    async (request, reply) => {
      await disconnectRepository(db, request.params.id);
      return reply.code(204).send(null);
    },
  );

  await fastify.register(webhookRoute);
}
