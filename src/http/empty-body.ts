// Routes whose body has only optional fields take a call without one, as `{}`: no body at all, or
// an empty one under `Content-Type: application/json` (what many clients send for "no options").
// Register the routes in a context of their own and call this first; their document says the body
// may be left out when the schema is wrapped in `optionalBody` (openapi.ts).
import type { FastifyInstance } from 'fastify';

export function acceptEmptyBody(app: FastifyInstance): void {
  // The default parser's own prototype-poisoning refusals stay in force for every non-empty body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, {});
    return parseJson(request, String(body), done);
  });
  app.addHook('preValidation', async (request) => {
    request.body ??= {};
  });
}
