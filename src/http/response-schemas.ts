// Response schemas in the forms fast-json-stringify writes fastest. It decides an `anyOf` by running
// the JSON Schema validator on the value, option after option, for every value it writes: a page of
// 100 posts validated each author object and each nullable time again (bench/README.md, "Forum
// member reads"). The two unions the APIs declare are rewritten, meaning the same, into forms it
// decides with a `typeof`: `[X, null]` into X with `type: [X.type, 'null']`, and a union of string
// constants into one string `enum`. Request schemas are left as they are; the OpenAPI documents
// show the rewritten responses, which OpenAPI 3.1 reads the same. An answer serialized ahead, by
// the route's serializer, is sent as it is (`sendSerialized`, `sendSerializedOnce`).
import type { FastifyReply, RouteOptions } from 'fastify';

type Schema = Record<string, unknown>;

/** The content type of Fastify's JSON answers: an answer serialized ahead is sent with it as it is. */
export const JSON_TYPE = 'application/json; charset=utf-8';

const serializedAnswers = new WeakMap<object, Buffer>();

/**
 * Sends `cached`, as `present` makes the answer of it, as the route's response serializer writes it,
 * in UTF-8, made once per cached value: a value the node caches and answers again (decisions 0105,
 * 0109) goes out as the same bytes. Only one route may answer a given cached value so.
 */
export function sendSerializedOnce<T extends object>(
  reply: FastifyReply,
  cached: T,
  present: (cached: T) => unknown = (value) => value,
): FastifyReply {
  let body = serializedAnswers.get(cached);
  if (body === undefined) serializedAnswers.set(cached, (body = Buffer.from(String(reply.serialize(present(cached))))));
  return sendSerialized(reply, body);
}

/** Sends JSON the route serialized ahead (`reply.serialize`), as it is. */
export function sendSerialized(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type(JSON_TYPE).send(body);
}

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema meaning `option`'s values and null, with a type list, or undefined when none can say it. */
function withNull(option: unknown): Schema | undefined {
  if (
    !isObject(option) ||
    typeof option.type !== 'string' ||
    option.type === 'null' ||
    'anyOf' in option ||
    'oneOf' in option ||
    'allOf' in option
  )
    return undefined;
  return { ...option, type: [option.type, 'null'] };
}

/** The union as fast-json-stringify decides it without validating, or the union itself. */
function simplerUnion(schema: Schema, options: unknown[]): Schema {
  const { anyOf: _anyOf, ...rest } = schema;
  if (options.length === 2) {
    const [first, second] = options;
    const nullable =
      isObject(second) && second.type === 'null' && Object.keys(second).length === 1
        ? withNull(first)
        : isObject(first) && first.type === 'null' && Object.keys(first).length === 1
          ? withNull(second)
          : undefined;
    if (nullable) return { ...nullable, ...rest };
  }
  const constants = options.every(
    (option) =>
      isObject(option) &&
      option.type === 'string' &&
      typeof option.const === 'string' &&
      Object.keys(option).length === 2,
  );
  if (constants && options.length > 0)
    return { type: 'string', enum: options.map((option) => (option as Schema).const), ...rest };
  return schema;
}

/** `schema` with its unions (at any depth) in the forms above; shared parts are rewritten once. */
export function serializableSchema(schema: unknown, done = new WeakMap<object, unknown>()): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const rewritten = done.get(schema);
  if (rewritten !== undefined) return rewritten;
  let result: unknown;
  if (Array.isArray(schema)) {
    result = schema.map((item) => serializableSchema(item, done));
  } else {
    const copy: Schema = {};
    for (const [key, value] of Object.entries(schema)) copy[key] = serializableSchema(value, done);
    result = Array.isArray(copy.anyOf) ? simplerUnion(copy, copy.anyOf) : copy;
  }
  done.set(schema, result);
  return result;
}

/** onRoute hook: the route's response schemas in the forms above, before Fastify compiles them. */
export function serializableResponses(route: RouteOptions): void {
  if (route.schema?.response) route.schema = { ...route.schema, response: serializableSchema(route.schema.response) };
}
