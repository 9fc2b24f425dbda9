// `POST /inbound-email`: mail for the support address, from a mail server (raw MIME) or a provider's
// inbound webhook (Postmark, SendGrid, Mailgun), verified the way each signs it, then threaded onto
// its ticket or opened as a new one (mail/inbound.ts, docs/decisions/0053-helpdesk-inbound-mail.md).
// Nothing of the body is read before the headers pass: the rate limits, the site, its plan and every
// check the headers allow (docs/decisions/0114-helpdesk-inbound-limits.md); the body is then read
// up to a bound set by the site's attachment limit.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../http/errors.js';
import { problems } from '../http/openapi.js';
import { consumeRateLimit } from '../http/rate-limit.js';
import type { InstanceSettings } from '../core/settings/allowlist.js';
import type { SiteRow } from '../core/sites/tables.js';
import { inboundVerification, receiveInbound, type InboundDeps } from './mail/inbound.js';
import { acknowledgeTicket, replyMailSettings } from './mail/outgoing.js';
import { checkInboundHeaders } from './mail/providers.js';

/** Room beyond the largest attachment, base64-encoded, for the headers, the text and the provider's fields. */
const BODY_ALLOWANCE_BYTES = 2 * 1024 * 1024;
/** The bound whatever the site's attachment limit. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** How large an inbound body may be: the largest attachment the site accepts, base64-encoded, and room for the rest. */
function inboundBodyLimit(maxAttachmentBytes: number): number {
  return Math.min(MAX_BODY_BYTES, Math.ceil((maxAttachmentBytes * 4) / 3) + BODY_ALLOWANCE_BYTES);
}

interface InboundTarget {
  site: SiteRow;
  /** The site's applied settings. */
  settings: InstanceSettings;
  bodyLimit: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The site an inbound mail request is for, found and checked before its body is read. */
    inbound: InboundTarget | null;
  }
}

const InboundOut = Type.Object({
  ticket_id: Type.Union([Type.String(), Type.Null()]),
  number: Type.Union([Type.Integer(), Type.Null()]),
  created: Type.Boolean({
    description:
      'True when the mail was filed (a new ticket, or a new message on the ticket it answers); false when it repeated a Message-ID already filed, or was ignored.',
  }),
  ignored: Type.Union([Type.String(), Type.Null()], {
    description: 'Why a machine-sent mail (auto-reply, bounce, list) was dropped, or null.',
  }),
});

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `An inbound e-mail request carries at most ${limit} bytes for this site.`);
}

/**
 * The body, read up to `limit` bytes: a declared larger length is refused before reading, a longer
 * stream as soon as it passes the bound (the rest is left to the connection's drain, decision 0032).
 */
function readBounded(request: FastifyRequest, stream: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.removeListener('data', onData);
        stream.removeListener('end', onEnd);
        stream.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', reject);
  });
}

export async function inboundRoutes(fastify: FastifyInstance): Promise<void> {
  const deps = (): InboundDeps => ({
    db: fastify.deps.database.db,
    blobs: fastify.deps.blobs,
    secretKey: fastify.deps.config.secretKey,
  });
  fastify.decorateRequest('inbound', null);

  /** Rate limits, site, plan and the header checks: all before the body (onRequest runs before parsing). */
  const admit = async (request: FastifyRequest): Promise<void> => {
    const cache = fastify.deps.cache.cache;
    const target = request.target;
    const site = target.kind === 'site' ? await fastify.services.sites.get(target.site) : undefined;
    if (!site || site.kind !== 'community')
      throw new AppError('site_not_found', `No site with a help desk answers at ${request.hostname}.`);
    await consumeRateLimit(
      cache,
      `helpdesk:inbound:${site.id}:${request.ip}`,
      fastify.deps.config.rateLimit.inboundPerMinute,
      60,
      'inbound e-mail requests from one address',
    );
    await fastify.services.plans.require(site, 'helpdesk_api');
    const settings = await fastify.instanceSettings.applied(site.id);
    const verification = inboundVerification(deps(), site.id, settings.values);
    checkInboundHeaders(
      { contentType: String(request.headers['content-type'] ?? ''), headers: request.headers },
      verification,
    );
    await consumeRateLimit(
      cache,
      `helpdesk:inbound:${site.id}`,
      fastify.deps.config.rateLimit.inboundSitePerMinute,
      60,
      'inbound e-mail requests to this site',
    );
    request.inbound = { site, settings, bodyLimit: inboundBodyLimit(verification.maxAttachmentBytes) };
  };

  // The verification signs the exact bytes: every body arrives raw, whatever its type, and bounded.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, payload, done) => {
    readBounded(request, payload, request.inbound?.bodyLimit ?? 0).then(
      (body) => done(null, body),
      (error: Error) => done(error, undefined),
    );
  });
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/inbound-email',
    {
      schema: {
        tags: ['inbound e-mail'],
        summary: 'File an inbound e-mail: raw MIME, or a Postmark, SendGrid or Mailgun inbound payload',
        description: [
          '`Content-Type: message/rfc822` with the raw message and `Authorization: Bearer <HELPDESK_INBOUND_SECRET>`; Postmark JSON with the secret as basic-auth password; SendGrid Inbound Parse and Mailgun routes as they post, verified by their signatures (a Mailgun signature is taken once). Idempotent on Message-ID. Machine-sent mail is answered 202 and dropped.',
          `Limits: the bearer secret and basic auth are checked before the body is read. A body may be as large as the site's largest attachment (HELPDESK_ATTACHMENT_MAX_BYTES, 25 MiB by default) base64-encoded plus 2 MiB, and at most 64 MiB: larger answers 413. A form payload has at most 1000 parts. At most BLUME_RATE_INBOUND_PER_MINUTE (60 by default) requests per minute from one client address to one site, and BLUME_RATE_INBOUND_SITE_PER_MINUTE (300 by default) per minute to one site, answer 429 with Retry-After beyond. A text over 100,000 characters is cut there on its entry, the whole text attached as message.txt.`,
        ].join('\n\n'),
        security: [{ inboundSecret: [] }],
        response: { 202: InboundOut, ...problems(401, 413, 422, 429) },
      },
      // The inbound route's own limits replace the API's default one (http/rate-limit.ts).
      config: { rateLimit: false },
      onRequest: admit,
    },
    async (request, reply) => {
      const target = request.inbound!;
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const result = await receiveInbound(deps(), target.site.id, target.settings.values, {
        contentType: String(request.headers['content-type'] ?? ''),
        headers: request.headers,
        body,
      });
      if (result.openedBy && result.ticket)
        await acknowledgeTicket(
          { db: fastify.deps.database.db, outbox: fastify.mailOutbox, log: request.log },
          result.ticket,
          replyMailSettings(target.site, target.settings, fastify.mailOutbox, fastify.deps.config.secretKey),
          result.openedBy,
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
