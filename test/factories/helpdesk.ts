// Factories for help desk tests: `helpdeskApi` calls the Help desk API on a site's host with an API
// key (Bearer) or a forum token.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { communityHost } from './forum.js';

export const HELPDESK_BASE = '/api/helpdesk/v1';

export type HelpdeskCredential = { key: string } | { token: string } | undefined;

/** Calls the Help desk API of `site`; `path` is relative to /api/helpdesk/v1. */
export function helpdeskApi(
  app: FastifyInstance,
  site: string,
  credential: HelpdeskCredential,
  options: Omit<InjectOptions, 'url'> & { path: string },
): Promise<LightMyRequestResponse> {
  const { path, headers, ...rest } = options;
  const auth =
    credential === undefined
      ? {}
      : 'key' in credential
        ? { authorization: `Bearer ${credential.key}` }
        : { 'authentication-token': credential.token };
  return app.inject({
    ...rest,
    url: `${HELPDESK_BASE}${path}`,
    headers: { host: communityHost(site), ...auth, ...headers },
  } as InjectOptions);
}
