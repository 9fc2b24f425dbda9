// Answers given before the request body was read (an upload refused at its first tar entry, a bomb
// stopped at the expansion limit) must not strand the connection: the unread rest of the body sits
// in front of the next request, and nobody reads it. After such an answer a bounded remainder is read
// and dropped, so the connection stays usable; a larger one (by its declared length, or once the
// bytes read pass the bound) ends the connection, saying so with `Connection: close` when the
// length was known in time. Decision 0032.
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The most of an unread body drained after an early answer (2 x the socket buffers of a fast client). */
export const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;

function hasBody(request: FastifyRequest): boolean {
  const { headers } = request.raw;
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

export function drainUnreadBodies(app: FastifyInstance, limit = DRAIN_LIMIT_BYTES): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && hasBody(request)) {
      const length = request.raw.headers['content-length'];
      // A chunked body has no length to judge it by: the connection ends.
      if (length === undefined || Number(length) > limit) reply.header('connection', 'close');
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || !hasBody(request) || raw.destroyed) return done();
    if (reply.getHeader('connection') === 'close') {
      // Node ends the connection after this answer; nothing more to read.
      return done();
    }
    let drained = 0;
    // Whatever the route piped the body into is gone or done with it.
    raw.unpipe();
    raw.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > limit) raw.socket.destroy();
    });
    raw.resume();
    done();
  });
}
