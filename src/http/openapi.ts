// One OpenAPI 3.1 document per API surface, generated from the route schemas of that surface's
// encapsulated plugin and served at `<prefix>/openapi.json`.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

export interface OpenApiInfo {
  title: string;
  description: string;
  /** Where the document is served, e.g. `/api/deploy`. */
  prefix: string;
  security?: Record<string, unknown>;
}

export async function registerOpenApi(app: FastifyInstance, info: OpenApiInfo): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: info.title, description: info.description, version: '1' },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'blume_session' },
          bearer: { type: 'http', scheme: 'bearer' },
          forumToken: { type: 'apiKey', in: 'header', name: 'Authentication-Token' },
          ...info.security,
        },
      },
    },
    hideUntagged: false,
  });
  app.get(`${info.prefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
