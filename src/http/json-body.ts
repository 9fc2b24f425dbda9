// The JSON body parser of every surface: Fastify's own (prototype poisoning refused), then a bound
// on nesting (src/lib/json-depth.ts) before any handler, validator or serializer recurses into it.
import type { FastifyInstance } from 'fastify';
import { jsonDepthWithin, MAX_JSON_DEPTH } from '../lib/json-depth.js';
import { AppError } from './errors.js';

export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    void parse(request, body as string, (error, value) => {
      if (error) return done(error);
      if (!jsonDepthWithin(value))
        return done(
          new AppError(
            'json_too_deep',
            `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects.`,
            {
              max_depth: MAX_JSON_DEPTH,
            },
          ),
        );
      done(null, value);
    });
  });
}
