// A cookie-keeping client for the server-rendered pages (forum UI, console) over `app.inject`: it
// reads pages, takes the CSRF token from the page's forms and posts forms the way a browser without
// JavaScript does.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { multipartForm, type FormPart } from './archives.js';

export class UiClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page read. */
  csrf = '';

  constructor(
    readonly app: FastifyInstance,
    readonly host: string,
  ) {}

  private keep(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies) {
      if (
        cookie.value === '' ||
        (cookie.maxAge !== undefined && cookie.maxAge <= 0) ||
        (cookie.expires && cookie.expires.getTime() < Date.now())
      )
        this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body);
    if (token) this.csrf = token[1]!;
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size > 0
      ? { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
      : {};
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({
      method: 'GET',
      url,
      headers: { host: this.host, ...this.cookieHeader(), ...headers },
    });
    this.keep(response);
    return response;
  }

  /** Posts a form; the CSRF token of the last page goes along unless `csrf` says otherwise. */
  async post(
    url: string,
    fields: Record<string, string>,
    options: { csrf?: string | false; origin?: string } = {},
  ): Promise<LightMyRequestResponse> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const body = new URLSearchParams({ ...(csrf === false ? {} : { _csrf: csrf }), ...fields }).toString();
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        host: this.host,
        'content-type': 'application/x-www-form-urlencoded',
        origin: options.origin ?? `http://${this.host}`,
        ...this.cookieHeader(),
      },
      payload: body,
    });
    this.keep(response);
    return response;
  }

  /** Posts a multipart form (an upload); the CSRF token of the last page goes first unless `csrf` is false. */
  async postMultipart(
    url: string,
    parts: FormPart[],
    options: { csrf?: false; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const body = multipartForm([...(options.csrf === false ? [] : [{ name: '_csrf', value: this.csrf }]), ...parts]);
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        host: this.host,
        origin: `http://${this.host}`,
        ...body.headers,
        ...this.cookieHeader(),
        ...options.headers,
      },
      payload: body.payload,
    });
    this.keep(response);
    return response;
  }

  /** Reads the page with the form first (for its token), then posts. */
  async submit(pageUrl: string, action: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    await this.get(pageUrl);
    return this.post(action, fields);
  }

  async login(login: string, password: string): Promise<LightMyRequestResponse> {
    return this.submit('/login', '/login', { login, password });
  }
}

/** The unread count a page's header shows, 0 when it shows none. */
export function headerCount(body: string): number {
  const match =
    /href="\/notifications">Notifications(?: <span class="count">(\d+)<span class="sr-only"> unread<\/span><\/span>)?<\/a>/.exec(
      body,
    );
  assert.ok(match, 'the header links the notifications');
  return Number(match[1] ?? 0);
}

/** The visible text of a page, without tags, for simple assertions. */
export function pageText(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ');
}
