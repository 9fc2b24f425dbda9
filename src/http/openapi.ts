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
import { errorCodes } from './errors.js';

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
    code: Type.Unsafe<string>({
      type: 'string',
      enum: Object.keys(errorCodes).sort(),
      description: 'Stable machine-readable code: one of the codes of every Blume API.',
    }),
  },
  {
    $id: 'Problem',
    title: 'Problem',
    description: 'RFC 9457 problem details; some codes add members such as `errors`.',
    additionalProperties: true,
  },
);

/** What each group of operations is for, as the documents' top-level `tags` say. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Signing in and out, and the credentials that stand for a member or account.',
  sites: "The account's sites.",
  credentials: "A site's deploy tokens and API keys (each secret shown once).",
  admin: 'Platform administration: purchase keys and the audit log.',
  deploy: "A site's releases: upload, promote, stage and roll back.",
  builds: 'Docs builds from Markdown sources.',
  github: 'A connected git repository whose pushes build and deploy.',
  settings: "A community instance's settings, applied on restart.",
  plans: 'The plans a workspace can be on.',
  workspaces: 'Workspaces provisioned, re-planned, suspended and cancelled by a reseller.',
  structure: 'Categories of the forum.',
  forums: 'Forums and their visibility.',
  topics: 'Topics, their lists and read state.',
  posts: 'Posts of a topic: replies, edits, likes and flags.',
  moderation: 'Flags, held posts, warnings, suspensions and the moderation log.',
  search: 'Full-text search over what the caller may see.',
  members: 'Members, their roles and bans.',
  notifications: 'A member’s notifications and how they are mailed.',
  waitlist: 'The sign-up waitlist.',
  uploads: 'Images and files attached to posts.',
  drafts: 'A member’s unsent drafts.',
  'content model': 'Content types and their fields.',
  globals: 'Single entries that hold site-wide content.',
  entries: 'Entries of any content type: drafts, publishing, filters and sorting.',
  ai: 'Drafting content with the site’s AI provider.',
  webhooks: 'Webhooks called when entries change.',
  media: 'The media library.',
  tickets: 'Tickets, their replies and history.',
  categories: 'Ticket categories and who works them.',
  agents: 'Agents, their capacity and categories.',
  sla: 'Service-level targets per priority.',
  'inbound e-mail': 'Mail that opens or answers tickets.',
  reports: 'Ticket, agent, category, SLA and trend reports.',
};

/** The top-level `tags` of a document: every tag its operations use, in order of first use. */
export function describedTags(paths: Record<string, Record<string, unknown> | undefined>): OpenAPIV3.TagObject[] {
  const names = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item ?? {}) as Array<{ tags?: string[] }>)
      for (const tag of operation.tags ?? []) names.add(tag);
  }
  return [...names].map((name) => ({
    name,
    description:
      TAG_DESCRIPTIONS[name] ??
      (name.startsWith('entries: ') ? `Entries of the content type \`${name.slice(9)}\`.` : `Operations on ${name}.`),
  }));
}

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

/** Headers a problem answer of a status carries (problem.ts sets them). */
const PROBLEM_HEADERS: Record<number, Record<string, unknown>> = {
  401: {
    'WWW-Authenticate': { type: 'string', description: 'The credential the operation takes (RFC 9110).' },
  },
  429: { 'Retry-After': { type: 'integer', description: 'Seconds until a request may be sent again.' } },
  503: { 'Retry-After': { type: 'integer', description: 'Seconds until the service is expected back.' } },
};

function problemResponse(status: number): Record<string, unknown> {
  return {
    description: PROBLEM_TEXT[status] ?? 'Problem',
    ...(PROBLEM_HEADERS[status] ? { headers: PROBLEM_HEADERS[status] } : {}),
    content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
  };
}

/** What a paginated list answer carries besides its body (http/pagination.ts). */
const PAGINATION_HEADERS = {
  'X-Pagination': {
    type: 'string',
    description:
      'JSON: total, total_pages, first_page, last_page, page, and previous_page and next_page where they exist.',
  },
  Link: { type: 'string', description: 'RFC 8288 links to the first, last, previous and next pages.' },
};

/** What a conditional GET's answer carries (src/http/etags.ts). */
const CONDITIONAL_HEADERS = {
  ETag: {
    type: 'string',
    description:
      'A weak tag of this answer for this credential; send it back as `If-None-Match` to be answered 304 while it holds.',
  },
  'Cache-Control': {
    type: 'string',
    description: '`private, no-cache` when a credential asked (`no-cache` otherwise): revalidate before each use.',
  },
  Vary: { type: 'string', description: 'Names `Authorization, Authentication-Token, Cookie`.' },
};

const NOT_MODIFIED = {
  type: 'null',
  description: 'Not modified: the `ETag` sent in `If-None-Match` still names the answer; no body.',
  headers: { ETag: CONDITIONAL_HEADERS.ETag },
};

const IF_NONE_MATCH = {
  type: 'string',
  maxLength: 1000,
  description: 'The `ETag` of the answer last read: 304 with no body while it still names the answer.',
};

/** The route's header schema (if any) with `If-None-Match` added, for the document only. */
function withIfNoneMatch(headers: unknown): Record<string, unknown> {
  const base = (headers ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> };
  return { ...base, type: 'object', properties: { ...base.properties, 'if-none-match': IF_NONE_MATCH } };
}

/** Operations whose success answer carries an `ETag` a later `If-Match` names (routes set it). */
const ETAG_HEADERS: Record<string, string> = {
  'POST /api/cms/v1/entries/{type}':
    'The version of the entry; send it back as `If-Match` to replace or delete only this version.',
  'GET /api/cms/v1/entries/{type}/{id}':
    'The version of the entry; send it back as `If-Match` to replace or delete only this version.',
  'PUT /api/cms/v1/entries/{type}/{id}':
    'The version of the entry; send it back as `If-Match` to replace or delete only this version.',
  'GET /api/deploy/{id}/releases':
    'The live release, `"<release id>"` (`"none"` when nothing is live); send it as `If-Match` to promote or roll back only from it.',
};

function isPaginated(schema: FastifySchema): boolean {
  const properties = (schema.querystring as { properties?: Record<string, unknown> } | undefined)?.properties;
  return Boolean(properties && 'page' in properties && 'page_size' in properties);
}

/** A success answer's description, from the operation's name: listTopics -> "A page of topics." */
function successText(name: string, status: number): string {
  if (status === 204) return 'Done; there is nothing to answer.';
  const [verb = '', ...rest] = name.split(/(?=[A-Z])/);
  const object = rest.join(' ').toLowerCase();
  if (verb === 'list') return `A page of ${object}.`;
  if (verb === 'get') return `The ${object}.`;
  if (verb === 'create') return `The new ${object}.`;
  if (status === 202) return 'Accepted; the work goes on after the answer.';
  return `The result of ${[verb, ...rest].join(' ').toLowerCase()}.`;
}

const pascal = (word: string): string =>
  word
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

function singular(word: string): string {
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  return word.endsWith('s') ? word.slice(0, -1) : word;
}

const isPlural = (word: string): boolean => /([^su]s|ies)$/.test(word);

/** Names a generated client would have to invent badly; each says what the call does. */
const OPERATION_NAMES: Record<string, string> = {
  'POST /api/auth/signup': 'signUp',
  'POST /api/auth/login': 'logIn',
  'POST /api/auth/logout': 'logOut',
  'POST /api/deploy/{id}': 'uploadRelease',
  'GET /api/deploy/token': 'getDeployToken',
  'POST /api/deploy/{id}/promote': 'promoteRelease',
  'POST /api/deploy/{id}/rollback': 'rollBack',
  'PUT /api/deploy/{id}/stage': 'stageRelease',
  'DELETE /api/deploy/{id}/stage': 'unstageRelease',
  'POST /api/deploy/{id}/source': 'buildFromSource',
  'PUT /api/deploy/{id}/github': 'connectRepository',
  'GET /api/deploy/{id}/github': 'getRepository',
  'DELETE /api/deploy/{id}/github': 'disconnectRepository',
  'POST /api/deploy/{id}/github/webhook': 'receivePushWebhook',
  'GET /api/instances/{id}/env': 'getInstanceSettings',
  'PUT /api/instances/{id}/env': 'setInstanceSettings',
  'POST /api/instances/{id}/restart': 'restartInstance',
  'POST /api/forum/v1/topics/read': 'markTopicsRead',
  'POST /api/forum/v1/topics/{id}/read': 'markTopicRead',
  'POST /api/forum/v1/posts/{id}/like': 'likePost',
  'DELETE /api/forum/v1/posts/{id}/like': 'unlikePost',
  'POST /api/forum/v1/posts/{id}/flags': 'flagPost',
  'POST /api/forum/v1/notifications/read': 'markNotificationsRead',
  'POST /api/forum/v1/auth/tokens': 'createForumToken',
  'GET /api/forum/v1/auth/tokens': 'listForumTokens',
  'DELETE /api/forum/v1/auth/tokens/{token_id}': 'deleteForumToken',
  'GET /api/forum/v1/search': 'search',
  'POST /api/helpdesk/v1/inbound-email': 'receiveInboundEmail',
  'POST /api/helpdesk/v1/tickets/{id}/draft-reply': 'draftTicketReply',
  'POST /api/cms/v1/ai-content/generate': 'generateContent',
  'GET /api/cms/v1/entries/{type}': 'listEntries',
  'POST /api/cms/v1/entries/{type}': 'createEntry',
  'POST /api/cms/v1/media': 'uploadMedia',
  'GET /api/cms/v1/media': 'listMedia',
  'GET /api/forum/v1/notifications/settings': 'getNotificationSettings',
  'PATCH /api/forum/v1/notifications/settings': 'updateNotificationSettings',
  'POST /api/forum/v1/waitlist/{service_key}': 'joinWaitlist',
  'GET /api/forum/v1/waitlist': 'listWaitlist',
  'GET /api/forum/v1/waitlist.csv': 'exportWaitlist',
};

/**
 * An operation's name from its method and path below the document's prefix, as generators turn it
 * into a method: `GET /topics` listTopics, `GET /topics/{id}` getTopic, `POST /topics/{id}/posts`
 * createTopicPost, `POST /workspaces/{id}/suspend` suspendWorkspace; `OPERATION_NAMES` where that reads badly.
 */
function operationName(method: string, url: string, prefix: string): string {
  const named = OPERATION_NAMES[`${method} ${url.replace(/:(\w+)/g, '{$1}')}`];
  if (named) return named;
  const segments = url.slice(prefix.length).split('/').filter(Boolean);
  const isParam = (segment: string | undefined) => segment?.startsWith('{') || segment?.startsWith(':');
  const last = segments.at(-1);
  const lastIsParam = isParam(last);
  // Each word of the path, singular where a parameter picks one item of it; parameters dropped.
  const words = segments.flatMap((segment, i) =>
    isParam(segment) ? [] : [isParam(segments[i + 1]) ? singular(segment) : segment],
  );
  const base = (parts: string[]) => parts.map(pascal).join('');
  const verb = (name: string, parts: string[]) => `${name}${base(parts)}`;
  if (method === 'GET') return verb(!lastIsParam && last && isPlural(last) ? 'list' : 'get', words);
  if (method === 'PATCH') return verb('update', words);
  if (method === 'DELETE') return verb('delete', words);
  if (method === 'PUT') return verb(lastIsParam ? 'replace' : 'set', words);
  if (lastIsParam || !last) return verb(method.toLowerCase(), words);
  if (isPlural(last)) return verb('create', [...words.slice(0, -1), singular(words.at(-1)!)]);
  // A verb after an item: `POST /workspaces/{id}/suspend`.
  return `${last.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())}${base(words.slice(0, -1))}`;
}

const OPTIONAL_BODY_MARK = 'x-blume-optional-body';

function describeOperation(
  schema: FastifySchema & Record<string, unknown>,
  url: string,
  route: RouteOptions,
  prefix: string,
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
  const name = (schema.operationId as string | undefined) ?? operationName(method, url, prefix);
  const etag = ETAG_HEADERS[`${method} ${url.replace(/:(\w+)/g, '{$1}')}`];
  // Conditional GETs (src/http/etags.ts): the tag, If-None-Match, and the 304.
  const conditional = method === 'GET' && route.config?.etag !== undefined;
  if (conditional) response[304] = NOT_MODIFIED;
  for (const [status, value] of Object.entries(response)) {
    const code = Number(status);
    if (code < 200 || code >= 300 || !value || typeof value !== 'object') continue;
    const described = 'description' in value || 'x-response-description' in value;
    const headers = {
      ...(code === 200 && method === 'GET' && isPaginated(schema) ? PAGINATION_HEADERS : {}),
      ...(etag ? { ETag: { type: 'string', description: etag } } : {}),
      ...(conditional && code === 200 ? CONDITIONAL_HEADERS : {}),
    };
    response[status] = {
      ...value,
      ...(described ? {} : { 'x-response-description': successText(name, code) }),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
    };
  }
  return {
    ...schema,
    ...(conditional ? { headers: withIfNoneMatch(schema.headers) } : {}),
    // @fastify/swagger marks every body required; transformObject reads this and drops it.
    ...(schema.body && optionalBodies.has(schema.body) ? { [OPTIONAL_BODY_MARK]: true } : {}),
    operationId: name,
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
      schema: describeOperation((schema ?? {}) as FastifySchema & Record<string, unknown>, url, route, info.prefix),
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
      openapiObject.tags = describedTags(openapiObject.paths ?? {});
      return openapiObject;
    },
  });
  const extend = info.extend;
  app.get(`${info.prefix}/openapi.json`, { schema: { hide: true } }, async (request) =>
    extend ? extend(structuredClone(app.swagger()) as unknown as OpenApiDocument, request) : app.swagger(),
  );
}
