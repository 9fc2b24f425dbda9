// How the tool server reaches a Blume: only over its public HTTP APIs, through a `Sender` (the
// network for `blume mcp`, or the app itself for `{portal_url}/mcp`). Every failure becomes a
// `ToolFailure` whose message the agent reads; credentials never appear in one.
import type { Readable } from 'node:stream';

interface ApiRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Buffer | Readable;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

export type Sender = (request: ApiRequest) => Promise<ApiResponse>;

/** What the tool server acts with: the portal, and optionally a tenant (community site) with its credentials. */
export interface Credentials {
  /** The portal (`BLUME_URL`): deploy API. */
  blumeUrl: URL;
  deployToken?: string;
  /** The site the deploy token belongs to; asked of the API when not given. */
  site?: string;
  /** A community site (`BLUME_TENANT_URL`): forum and Content API. */
  tenantUrl?: URL;
  forumToken?: string;
  apiKey?: string;
}

/** A tool error: the message is what the agent reads (isError); `data`, if any, goes in the result's `_meta`. */
export class ToolFailure extends Error {
  constructor(
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A problem+json answer (or any non-2xx answer) of the API. */
export class ApiProblem extends ToolFailure {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

interface CallOptions {
  /** JSON body. */
  json?: unknown;
  /** A raw body with its own content type header. */
  body?: Buffer | Readable;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

export interface ApiAnswer<T> {
  status: number;
  data: T;
  headers: ApiResponse['headers'];
}

type Audience = 'deploy' | 'forum' | 'cms' | 'helpdesk';

export class BlumeClient {
  constructor(
    private readonly sender: Sender,
    readonly credentials: Credentials,
  ) {}

  /** Every secret the client holds, for scrubbing text that leaves the tool server. */
  secrets(): string[] {
    const { deployToken, forumToken, apiKey } = this.credentials;
    return [deployToken, forumToken, apiKey].filter((value): value is string => Boolean(value));
  }

  /** Replaces any credential in `text` with a marker. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets()) out = out.split(secret).join('[credential]');
    return out;
  }

  /** Calls an API as `audience` with its credential; throws `ApiProblem` on any non-2xx answer. */
  async call<T>(audience: Audience, method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer<T>> {
    const answer = await this.request<T>(audience, method, path, options);
    if (answer.status >= 200 && answer.status < 300) return answer;
    const problem = (answer.data && typeof answer.data === 'object' ? answer.data : {}) as Record<string, unknown>;
    const code = typeof problem.code === 'string' ? problem.code : undefined;
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : String(answer.data).slice(0, 200);
    const what =
      answer.status >= 500
        ? `Blume answered ${answer.status} to ${method} ${path}: the API is failing; nothing was changed by this tool. ${detail}`
        : `Blume refused ${method} ${path} (${answer.status}${code ? ` ${code}` : ''}): ${detail}`;
    throw new ApiProblem(this.scrub(what), answer.status, code, problem);
  }

  /** Like `call`, but answers every status; network failures still throw. */
  async request<T>(audience: Audience, method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer<T>> {
    const base = audience === 'deploy' ? this.credentials.blumeUrl : this.credentials.tenantUrl;
    if (!base)
      throw new ToolFailure('No tenant URL is configured (BLUME_TENANT_URL, or the X-Blume-Tenant-Url header).');
    const url = new URL(path, base);
    for (const [name, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.authHeaders(audience),
      ...options.headers,
    };
    let body = options.body;
    if (options.json !== undefined) {
      body = Buffer.from(JSON.stringify(options.json));
      headers['content-type'] = 'application/json';
    }
    return this.send<T>({ method, url, headers, body });
  }

  /** A plain request to any URL of this Blume (a preview host), with the given headers. */
  async probe(url: URL, headers: Record<string, string>): Promise<number> {
    const answer = await this.send<unknown>({ method: 'GET', url, headers });
    return answer.status;
  }

  private async send<T>(request: ApiRequest): Promise<ApiAnswer<T>> {
    let response: ApiResponse;
    try {
      response = await this.sender(request);
    } catch (error) {
      const cause = (error as { code?: string }).code ?? (error as Error).message;
      throw new ToolFailure(this.scrub(`Cannot reach Blume at ${request.url.origin} (${cause}); nothing was changed.`));
    }
    const text = response.body.toString('utf8');
    let data: unknown = text;
    const type = String(response.headers['content-type'] ?? '');
    if (type.includes('json') && text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    return { status: response.status, data: data as T, headers: response.headers };
  }

  private authHeaders(audience: Audience): Record<string, string> {
    const { deployToken, forumToken, apiKey } = this.credentials;
    if (audience === 'deploy') return deployToken ? { authorization: `Bearer ${deployToken}` } : {};
    if (audience === 'forum') return forumToken ? { 'authentication-token': forumToken } : {};
    // The help desk takes an API key, or else an agent's forum token.
    if (audience === 'helpdesk' && !apiKey) return forumToken ? { 'authentication-token': forumToken } : {};
    return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  }
}
