// Factories for Content API tests: API keys minted through the portal, and `cmsApi` to call the
// Content API on a site's host.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { portal, type Actor } from '../helpers/app.js';
import { communityHost } from './forum.js';

export const CMS_BASE = '/api/cms/v1';

export async function mintApiKey(app: FastifyInstance, owner: Actor, site: string, scopes: string[]): Promise<string> {
  const response = await portal(app, owner, {
    method: 'POST',
    url: `/api/sites/${site}/api-keys`,
    payload: { name: scopes.join('+'), scopes },
  });
  if (response.statusCode !== 201) throw new Error(`key minting failed: ${response.body}`);
  return (response.json() as { key: string }).key;
}

/** Calls the Content API of `site`; `path` is relative to /api/cms/v1. */
export function cmsApi(
  app: FastifyInstance,
  site: string,
  key: string | undefined,
  options: Omit<InjectOptions, 'url'> & { path: string },
): Promise<LightMyRequestResponse> {
  const { path, headers, ...rest } = options;
  return app.inject({
    ...rest,
    url: `${CMS_BASE}${path}`,
    headers: { host: communityHost(site), ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  } as InjectOptions);
}
