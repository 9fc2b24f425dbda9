// `{portal_url}/mcp`: the tool server over Streamable HTTP, stateless. Each POST carries its own
// credentials as headers (DESIGN section 11) and gets a fresh server whose tools reach this Blume's
// APIs in-process (`injectSender`), so a caller cannot make it open connections elsewhere. Browsers
// may call it only from the portal's own origin (DNS-rebinding and cross-site protection).
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';
import { apiClientKey, consumeRateLimit } from '../http/rate-limit.js';
import { BlumeClient, ToolFailure } from './api.js';
import { credentialsFromHeaders } from './credentials.js';
import { createToolServer } from './registry.js';
import type { FileAccess } from './tool.js';
import { injectSender } from './senders.js';

function checkOrigin(request: FastifyRequest, portal: URL): void {
  const origin = request.headers.origin;
  if (origin === undefined || origin === portal.origin) return;
  throw new AppError(
    'origin_not_allowed',
    `The MCP endpoint answers requests from ${portal.origin} or from agents that send no Origin, not from ${origin}.`,
  );
}

export async function mcpPlugin(fastify: FastifyInstance): Promise<void> {
  const { config } = fastify.deps;
  const surface = fastify.deps.mode === 'single' ? 'community' : 'portal';
  const files: FileAccess = config.mcpFilesDir ? { kind: 'under', root: config.mcpFilesDir } : { kind: 'none' };
  const sender = injectSender(fastify);

  fastify.post('/mcp', { constraints: { surface }, schema: { hide: true } }, async (request, reply) => {
    checkOrigin(request, config.publicUrl);
    await consumeRateLimit(fastify.deps.cache.cache, `mcp:${apiClientKey(request)}`, config.rateLimit.apiPerMinute, 60);
    let client: BlumeClient;
    try {
      client = new BlumeClient(sender, credentialsFromHeaders(request.headers, config.publicUrl));
    } catch (error) {
      if (error instanceof ToolFailure) throw new AppError('validation_failed', error.message);
      throw error;
    }
    const server = await createToolServer(
      { client, files },
      { warn: (message) => request.log.info({ mcp: message }, 'MCP tool group not listed') },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.once('close', () => {
      server
        .close()
        .catch((error: unknown) => request.log.warn({ err: error }, 'closing an MCP request server failed'));
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
}
