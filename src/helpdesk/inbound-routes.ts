// `POST /inbound-email`: mail for the support address, from a mail server (raw MIME) or a provider's
// inbound webhook (Postmark, SendGrid, Mailgun), verified the way each signs it, then threaded onto
// its ticket or opened as a new one (mail/inbound.ts, docs/decisions/0053-helpdesk-inbound-mail.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';
import { receiveInbound } from './mail/inbound.js';

/** A raw message or provider payload may carry the largest attachment base64-encoded, and more. */
const INBOUND_BODY_LIMIT = 64 * 1024 * 1024;

const InboundOut = Type.Object({
  ticket_id: Type.Union([Type.String(), Type.Null()]),
  number: Type.Union([Type.Integer(), Type.Null()]),
  created: Type.Boolean({
    description:
      'False when the mail threaded onto an existing ticket, repeated a Message-ID already filed, or was ignored.',
  }),
  ignored: Type.Union([Type.String(), Type.Null()], {
    description: 'Why a machine-sent mail (auto-reply, bounce, list) was dropped, or null.',
  }),
});

export async function inboundRoutes(fastify: FastifyInstance): Promise<void> {
  // The verification signs the exact bytes: every body arrives raw, whatever its type.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INBOUND_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/inbound-email',
    {
      schema: {
        tags: ['inbound e-mail'],
        summary: 'File an inbound e-mail: raw MIME, or a Postmark, SendGrid or Mailgun inbound payload',
        description:
          '`Content-Type: message/rfc822` with the raw message and `Authorization: Bearer <HELPDESK_INBOUND_SECRET>`; Postmark JSON with the secret as basic-auth password; SendGrid Inbound Parse and Mailgun routes as they post, verified by their signatures. Idempotent on Message-ID. Machine-sent mail is answered 202 and dropped.',
        security: [{ inboundSecret: [] }],
        response: { 202: InboundOut, ...problems(401, 413, 422) },
      },
      bodyLimit: INBOUND_BODY_LIMIT,
    },
    async (request, reply) => {
      const target = request.target;
      const site = target.kind === 'site' ? await app.services.sites.get(target.site) : undefined;
      if (!site || site.kind !== 'community')
        throw new AppError('site_not_found', `No site with a help desk answers at ${request.hostname}.`);
      await app.services.plans.require(site, 'helpdesk_api');
      const settings = await app.instanceSettings.applied(site.id);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const result = await receiveInbound(
        { db: app.deps.database.db, blobs: app.deps.blobs, secretKey: app.deps.config.secretKey },
        site.id,
        settings.values,
        {
          contentType: String(request.headers['content-type'] ?? ''),
          headers: request.headers,
          body,
        },
      );
      return reply.code(202).send({
        ticket_id: result.ticket?.id ?? null,
        number: result.ticket?.number ?? null,
        created: result.created,
        ignored: result.ignored,
      });
    },
  );
}
