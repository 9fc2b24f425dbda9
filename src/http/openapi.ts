// One OpenAPI 3.1 document per API surface, generated from the route schemas of that surface's
// encapsulated plugin and served at `<prefix>/openapi.json`. Every operation gets, unless its
// schema says otherwise: an operationId from its method and path; the security its auth preHandler
// declared (`declareSecurity`), or none; and the problem+json answers every route of its shape can
// give (400 and 404 with input, 401/403 with a credential, 413/415 with a body, 429 under /api/),
// next to the ones its schema lists with `problems(...)`.
import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import type { OpenAPIV3 } from 'openapi-types';
import { Type } from 'typebox';

type Security = Array<Record<string, string[]>>;

/** Every security scheme a Blume API uses; each document lists the ones its operations name. */
const SECURITY_SCHEMES: Record<string, OpenAPIV3.SecuritySchemeObject> = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'blume_session',
    description: 'The session cookie from POST /api/auth/login.',
  },
  deployToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'A deploy token of the site: `Authorization: Bearer dpl_<id>.<secret>`.',
  },
  forumToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authentication-Token',
    description: 'A forum token (POST /api/forum/v1/auth/tokens mints one).',
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key of the site with its scopes: `Authorization: Bearer blu_sk_<id>.<secret>`.',
  },
  purchaseKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A purchase key minted by a platform administrator: `Authorization: Bearer pk_<id>.<secret>`.',
  },
  inboundSecret: {
    type: 'http',
    scheme: 'bearer',
    description:
      "The site's HELPDESK_INBOUND_SECRET (Postmark sends it as basic auth); SendGrid and Mailgun payloads carry their own signatures instead.",
  },
  webhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Hub-Signature-256',
    description: 'HMAC-SHA256 of the raw body with the webhook secret, `sha256=<hex>`.',
  },
};

const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: '`urn:blume:problem:<code>`' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    code: Type.String({ description: 'Stable machine-readable code.' }),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    description: 'RFC 9457 problem details; some codes add members such as `errors`.',
    additionalProperties: true,
  },
);

const securityOf = new WeakMap<object, Security>();
const optionalBodies = new WeakSet<object>();

/** Marks a body schema whose fields are all optional: the document says the body may be left out (empty-body.ts). */
export function optionalBody<T extends object>(schema: T): T {
  optionalBodies.add(schema);
  return schema;
}

/** Records which security requirement a preHandler enforces, for the documents of routes using it. */
export function declareSecurity<T extends object>(preHandler: T, security: Security): T {
  securityOf.set(preHandler, security);
  return preHandler;
}

const PROBLEM_TEXT: Record<number, string> = {
  400: 'The request does not match the schema or is malformed.',
  401: 'No credential, or an invalid one.',
  403: 'The credential may not do this.',
  404: 'No such resource (or one the credential may not see).',
  409: 'The request conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The media type is not accepted.',
  422: 'The request is well-formed but refused.',
  429: 'Too many requests; see Retry-After.',
  503: 'The service is not ready.',
};

/** Problem answers to spread into a route's `response` for statuses its shape does not imply. */
export function problems(...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(statuses.map((status) => [status, problemResponse(status)]));
}

function problemResponse(status: number): Record<string, unknown> {
  return {
    description: PROBLEM_TEXT[status] ?? 'Problem',
    content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
  };
}

function operationId(method: string, url: string): string {
  const words = url.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method.toLowerCase(), ...words.map((word) => word[0]!.toUpperCase() + word.slice(1))].join('');
}

const OPTIONAL_BODY_MARK = 'x-blume-optional-body';

function describeOperation(
  schema: FastifySchema & Record<string, unknown>,
  url: string,
  route: RouteOptions,
): FastifySchema {
  const preHandlers = [route.preHandler ?? []].flat();
  const declared = preHandlers.map((handler) => securityOf.get(handler)).find((security) => security !== undefined);
  const security = (schema.security as Security | undefined) ?? declared ?? [];
  const response = { ...(schema.response as Record<string, unknown> | undefined) };
  const secured = security.some((requirement) => Object.keys(requirement).length > 0);
  const input = Boolean(schema.body || schema.querystring || schema.params);
  const implied = [
    input ? 400 : 0,
    secured ? 401 : 0,
    secured ? 403 : 0,
    // A path parameter, or an id in the body or query, can name something that is not there.
    input ? 404 : 0,
    schema.body ? 413 : 0,
    schema.body ? 415 : 0,
    url.startsWith('/api/') ? 429 : 0,
  ];
  for (const status of implied) if (status && !(status in response)) response[status] = problemResponse(status);
  for (const [status, value] of Object.entries(response)) {
    // Statuses listed with `problems(...)` are already full response objects.
    if (Number(status) >= 400 && value && typeof value === 'object' && !('content' in value))
      response[status] = problemResponse(Number(status));
  }
  const method = [route.method].flat()[0]!;
  return {
    ...schema,
    // @fastify/swagger marks every body required; transformObject reads this and drops it.
    ...(schema.body && optionalBodies.has(schema.body) ? { [OPTIONAL_BODY_MARK]: true } : {}),
    operationId: (schema.operationId as string | undefined) ?? operationId(method, url),
    security,
    response,
  };
}

interface OpenApiInfo {
  title: string;
  description: string;
  /** Where the document is served, e.g. `/api/deploy`. */
  prefix: string;
  /** Which host serves it: the portal, or each community site (`{site_url}`). */
  servedOn: 'portal' | 'site';
  /**
   * Adds what the routes cannot say to a copy of the generated document, per request (the Content
   * API adds the site's own content types).
   */
  extend?: (doc: OpenApiDocument, request: FastifyRequest) => Promise<OpenApiDocument>;
}

/** The generated document as plain JSON, for `extend`. */
export type OpenApiDocument = {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
};

/** One API surface's document, as the app's registry of documents lists it (llms.txt reads it). */
export interface ApiDocumentEntry {
  title: string;
  description: string;
  servedOn: OpenApiInfo['servedOn'];
  /** The document's URL path: `<prefix>/openapi.json`. */
  path: string;
  /** The generated document (without per-request extensions). */
  document(): Record<string, unknown>;
  /** Every route registered under the document's prefix, as `METHOD /path/:param` (HEAD and OPTIONS aside). */
  routes: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every API surface's OpenAPI document, registered by `registerOpenApi`; shared by the whole app. */
    apiDocuments: ApiDocumentEntry[];
  }
}

/** What transformObject reads and rewrites of an operation. */
interface OperationFields {
  security?: Security;
  requestBody?: { required?: boolean };
  [OPTIONAL_BODY_MARK]?: boolean;
}

export async function registerOpenApi(app: FastifyInstance, info: OpenApiInfo): Promise<void> {
  const routes: string[] = [];
  const documentPath = `${info.prefix}/openapi.json`;
  // Seen by every route this plugin's context registers from here on; a test checks each is documented.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(`${info.prefix}/`) || route.url === documentPath) return;
    for (const method of [route.method].flat())
      if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${route.url}`);
  });
  app.apiDocuments.push({
    title: info.title,
    description: info.description,
    servedOn: info.servedOn,
    path: documentPath,
    document: () => app.swagger() as unknown as Record<string, unknown>,
    routes,
  });
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: info.title,
        description: info.description,
        version: '1',
        license: { name: 'AGPL-3.0-only', identifier: 'AGPL-3.0-only' },
      },
      servers: [{ url: '/', description: 'The host that serves this document' }],
      // All schemes while operations are described; the finished document keeps the ones it names.
      components: { securitySchemes: { ...SECURITY_SCHEMES } },
    },
    hideUntagged: false,
    // Shared schemas are named by their $id (`Problem`), not numbered.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => ({
      schema: describeOperation((schema ?? {}) as FastifySchema & Record<string, unknown>, url, route),
      url,
    }),
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      // Only the schemes this document's operations name, so none is listed unused.
      const used = new Set<string>();
      for (const item of Object.values(openapiObject.paths ?? {})) {
        for (const operation of Object.values(item ?? {}) as Array<OperationFields>) {
          if (operation[OPTIONAL_BODY_MARK]) {
            delete operation[OPTIONAL_BODY_MARK];
            if (operation.requestBody) operation.requestBody.required = false;
          }
          for (const requirement of operation.security ?? [])
            for (const name of Object.keys(requirement)) used.add(name);
        }
      }
      const securitySchemes: Record<string, OpenAPIV3.SecuritySchemeObject> = {};
      for (const name of [...used].sort()) if (SECURITY_SCHEMES[name]) securitySchemes[name] = SECURITY_SCHEMES[name];
      openapiObject.components = { ...openapiObject.components, securitySchemes };
      return openapiObject;
    },
  });
  const extend = info.extend;
  app.get(`${info.prefix}/openapi.json`, { schema: { hide: true } }, async (request) =>
    extend ? extend(structuredClone(app.swagger()) as unknown as OpenApiDocument, request) : app.swagger(),
  );
}
