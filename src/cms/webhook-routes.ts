// Webhook subscriptions and their delivery log (admin scope).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { problems } from '../http/openapi.js';
import { PageQuery, setPaginationHeaders, toPage } from '../http/pagination.js';
import { cmsAccess } from './access.js';
import { presentDelivery, presentWebhook } from './presenters.js';
import { DeliveryOut, WebhookBody, WebhookCreatedOut, WebhookOut, cmsSecurity } from './schemas.js';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks } from './webhooks.js';

const WebhookParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export async function webhookRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.deps.database.db;

  app.post(
    '/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Subscribe a URL to entry events (admin); the signing secret is shown once',
        security: cmsSecurity,
        body: WebhookBody,
        response: { 201: WebhookCreatedOut, ...problems(422) },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request, reply) => {
      const { row, secret } = await createWebhook(
        db,
        request.cms.site.id,
        app.deps.config.secretKey,
        request.body,
        app.deps.config.webhooksAllowPrivate,
      );
      return reply.code(201).send({ ...presentWebhook(row), secret });
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Webhook subscriptions (admin)',
        security: cmsSecurity,
        response: { 200: Type.Array(WebhookOut) },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request) => (await listWebhooks(db, request.cms.site.id)).map(presentWebhook),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Remove a subscription and its log (admin)',
        security: cmsSecurity,
        params: WebhookParams,
        response: { 204: Type.Null() },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request, reply) => {
      await deleteWebhook(db, request.cms.site.id, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delivery log of a subscription, newest first (admin)',
        security: cmsSecurity,
        params: WebhookParams,
        querystring: PageQuery,
        response: { 200: Type.Array(DeliveryOut) },
      },
      preHandler: cmsAccess('admin'),
    },
    async (request, reply) => {
      const page = toPage(request.query);
      const { rows, total } = await listDeliveries(db, request.cms.site.id, request.params.id, page);
      setPaginationHeaders(request, reply, page, total);
      return rows.map(presentDelivery);
    },
  );
}
