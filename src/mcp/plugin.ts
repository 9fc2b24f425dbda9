// `{portal_url}/mcp`: the tool server over Streamable HTTP, stateless. Each POST carries its own
// credentials as headers (DESIGN section 11) and gets a fresh server whose tools reach this Blume's
// APIs in-process (`injectSender`), so a caller cannot make it open connections elsewhere. Browsers
// may call it only from the portal's own origin (DNS-rebinding and cross-site protection). A request
// with no credential, or with one its API refuses, answers 401 with `WWW-Authenticate` pointing at
// the protected-resource metadata (RFC 9728), as the MCP authorization specification describes.
import { createHmac } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors.js';
import { apiClientKey, consumeRateLimit } from '../http/rate-limit.js';
import { BlumeClient, ToolFailure } from './api.js';
import { Confirmations } from './confirmation.js';
import { credentialsFromHeaders, HEADER_NAMES, readOnlyFromHeaders } from './credentials.js';
import { createToolServer, findTools } from './registry.js';
import type { FileAccess, ToolContext } from './tool.js';
import { injectSender } from './senders.js';

const METADATA_PATH = '/.well-known/oauth-protected-resource';

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
  const files: FileAccess = config.mcpFilesDir ? { kind: 'site-folders', root: config.mcpFilesDir } : { kind: 'none' };
  const sender = injectSender(fastify);
  // Every node signs with the instance's secret key, so any node checks an id another one answered.
  const confirmations = new Confirmations(createHmac('sha256', config.secretKey).update('mcp-confirmations').digest());
  const resource = new URL('/mcp', config.publicUrl).href;
  const metadataUrl = new URL(METADATA_PATH, config.publicUrl).href;

  // RFC 9728 protected-resource metadata. Blume runs no OAuth authorization server: the tokens are
  // deploy tokens, forum tokens and API keys made in the console, which the documentation explains.
  const metadata = {
    resource,
    resource_name: 'Blume MCP tool server',
    bearer_methods_supported: ['header'],
    resource_documentation: new URL('/llms.txt', config.publicUrl).href,
  };
  for (const url of [METADATA_PATH, `${METADATA_PATH}/mcp`])
    fastify.get(url, { constraints: { surface }, schema: { hide: true } }, async () => metadata);

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
    const context: ToolContext = { client, files, confirmations, idempotency: fastify.deps.cache.cache };
    const found = await findTools(context, HEADER_NAMES);
    const refused = found.problems.filter((problem) => problem.refused);
    if (found.anonymous || refused.length) {
      const said = (found.anonymous ? found.problems : refused).map((problem) => problem.message).join(' ');
      const challenge = `Bearer realm="blume", resource_metadata="${metadataUrl}"`;
      throw found.anonymous
        ? new AppError('authentication_required', said, {}, { 'WWW-Authenticate': challenge })
        : new AppError('invalid_token', said, {}, { 'WWW-Authenticate': `${challenge}, error="invalid_token"` });
    }
    for (const problem of found.problems) request.log.info({ mcp: problem.message }, 'MCP tool group not listed');
    const server = createToolServer(context, found, {
      readOnly: readOnlyFromHeaders(request.headers),
      warn: (message) => request.log.warn({ mcp: message }, 'MCP tool call'),
    });
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
