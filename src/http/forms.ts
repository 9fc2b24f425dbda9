// Reading HTML form posts of the server-rendered pages (forum UI and console). Forms arrive
// url-encoded; every field is a single bounded string, and a field sent twice counts once (the
// first), as browsers never do that.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export type FormBody = Record<string, string>;

export function registerFormParser(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_request, body, done) => {
      const form: FormBody = Object.create(null) as FormBody;
      for (const [name, value] of new URLSearchParams(body as string)) if (!(name in form)) form[name] = value;
      done(null, form);
    },
  );
}

/** A text field of the posted form; missing fields read as ''. Too long answers undefined. */
export function field(request: FastifyRequest, name: string, maxLength: number): string | undefined {
  const form = (request.body ?? {}) as FormBody;
  const value = typeof form[name] === 'string' ? form[name] : '';
  return value.length > maxLength ? undefined : value;
}

/** Redirect after a successful post (303, so reloading does not post again). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).send();
}

/** A local path to return to after logging in; anything else (other hosts, `//x`) goes home. */
export function safeNext(raw: string | undefined): string {
  return raw && /^\/(?![/\\])[\x21-\x7e]*$/.test(raw) ? raw : '/';
}
