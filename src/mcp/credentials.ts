// Where the tool server's credentials come from: the environment for `blume mcp`, the request's
// headers for `{portal_url}/mcp` (DESIGN section 11, "MCP").
import type { IncomingHttpHeaders } from 'node:http';
import { ToolFailure, type Credentials } from './api.js';

function optional(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text && text.trim() !== '' ? text.trim() : undefined;
}

function parseUrl(value: string | undefined, name: string): URL | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return url;
  } catch {
    throw new ToolFailure(`${name} must be an http(s) URL such as https://community.example.com, not "${value}".`);
  }
}

export function credentialsFromEnv(env: NodeJS.ProcessEnv): Credentials {
  return {
    blumeUrl: parseUrl(
      optional(env.BLUME_URL) ?? optional(env.BLUME_PUBLIC_URL) ?? 'http://localhost:8080',
      'BLUME_URL',
    )!,
    deployToken: optional(env.BLUME_DEPLOY_TOKEN),
    site: optional(env.BLUME_SITE),
    tenantUrl: parseUrl(optional(env.BLUME_TENANT_URL), 'BLUME_TENANT_URL'),
    forumToken: optional(env.BLUME_FORUM_TOKEN),
    apiKey: optional(env.BLUME_API_KEY),
  };
}

/** Over HTTP the portal is the server itself; the rest travels in headers. */
export function credentialsFromHeaders(headers: IncomingHttpHeaders, portal: URL): Credentials {
  const bearer = /^Bearer\s+(\S+)$/i.exec(optional(headers.authorization) ?? '')?.[1];
  return {
    blumeUrl: portal,
    deployToken: bearer,
    site: optional(headers['x-blume-site']),
    tenantUrl: parseUrl(optional(headers['x-blume-tenant-url']), 'X-Blume-Tenant-Url'),
    forumToken: optional(headers['authentication-token']),
    apiKey: optional(headers['x-blume-api-key']),
  };
}
