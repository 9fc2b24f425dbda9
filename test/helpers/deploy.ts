// Deploy API helpers: a static site with a deploy token, uploads, and requests to the static edge.
import assert from 'node:assert/strict';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { json, portal, type Actor } from './app.js';
import { multipartBody } from './archives.js';

export async function createStaticSite(app: FastifyInstance, actor: Actor, id: string): Promise<string> {
  const created = await portal(app, actor, { method: 'POST', url: '/api/sites', payload: { id, kind: 'static' } });
  assert.equal(created.statusCode, 201, created.body);
  const minted = await portal(app, actor, {
    method: 'POST',
    url: `/api/sites/${id}/deploy-tokens`,
    payload: { name: 'ci' },
  });
  return json<{ token: string }>(minted).token;
}

export function upload(
  app: FastifyInstance,
  token: string | undefined,
  site: string,
  archive: Buffer,
  field = 'archive',
): Promise<LightMyRequestResponse> {
  const body = multipartBody(field, archive);
  return portal(app, undefined, {
    method: 'POST',
    url: `/api/deploy/${site}`,
    headers: { ...body.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: body.payload,
  });
}

/** `POST /source`: Markdown sources to build; answers when the build ends. */
export function uploadSource(
  app: FastifyInstance,
  token: string,
  site: string,
  archive: Buffer,
): Promise<LightMyRequestResponse> {
  const body = multipartBody('archive', archive, 'docs.tar');
  return portal(app, undefined, {
    method: 'POST',
    url: `/api/deploy/${site}/source`,
    headers: { ...body.headers, authorization: `Bearer ${token}` },
    payload: body.payload,
  });
}

/** Uploads and answers the new release id, failing the test on anything but 201. */
export async function deployRelease(
  app: FastifyInstance,
  token: string,
  site: string,
  archive: Buffer,
): Promise<string> {
  const response = await upload(app, token, site, archive);
  assert.equal(response.statusCode, 201, response.body);
  return json<{ id: string }>(response).id;
}

/** A deploy API call with the token. */
export function deployApi(
  app: FastifyInstance,
  token: string,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return portal(app, undefined, {
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

export function basicAuth(password: string, user = 'preview'): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** A request to a site host such as `docs.blume.test` or `stage--docs.blume.test`. */
export function edge(
  app: FastifyInstance,
  host: string,
  url: string,
  headers: Record<string, string> = {},
  method: InjectOptions['method'] = 'GET',
): Promise<LightMyRequestResponse> {
  return app.inject({ method, url, headers: { host, ...headers } });
}
