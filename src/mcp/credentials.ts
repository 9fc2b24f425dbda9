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

/** How each transport names the credentials, for problems that say which one is missing or refused. */
export interface CredentialNames {
  deployToken: string;
  forumToken: string;
  apiKey: string;
  tenantUrl: string;
}

export const ENV_NAMES: CredentialNames = {
  deployToken: 'BLUME_DEPLOY_TOKEN',
  forumToken: 'BLUME_FORUM_TOKEN',
  apiKey: 'BLUME_API_KEY',
  tenantUrl: 'BLUME_TENANT_URL',
};

export const HEADER_NAMES: CredentialNames = {
  deployToken: 'Authorization (Bearer deploy token)',
  forumToken: 'Authentication-Token',
  apiKey: 'X-Blume-Api-Key',
  tenantUrl: 'X-Blume-Tenant-Url',
};

const TRUE = /^(1|true|yes|on)$/i;

/** Read-only mode: `BLUME_MCP_READ_ONLY=true` for `blume mcp`, the `X-Blume-Read-Only: true` header over HTTP. */
export function readOnlyFromEnv(env: NodeJS.ProcessEnv): boolean {
  return TRUE.test(optional(env.BLUME_MCP_READ_ONLY) ?? '');
}

export function readOnlyFromHeaders(headers: IncomingHttpHeaders): boolean {
  return TRUE.test(optional(headers['x-blume-read-only']) ?? '');
}
