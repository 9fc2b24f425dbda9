// The Content API's OpenAPI document: generated from the routes, plus what they cannot say — the
// `filter[...]` parameter family and one entry schema and path pair per content type, so a typed
// client can be generated. Custom types appear only for a caller who may read the content model
// (an API key of the site or its owner's session); the built-in types appear for everyone.
import type { FastifyRequest } from 'fastify';
import { eq } from 'drizzle-orm';
import { canManageSite } from '../core/sites/policy.js';
import { bearerToken, sessionUser } from '../core/auth.js';
import { describedTags, type OpenApiDocument } from '../http/openapi.js';
import { ARTICLES } from './content-types.js';
import { FIELD_KINDS, type FieldDefinition, type FilterOp } from './fields.js';
import { FORUM_TYPE_SLUGS, FORUM_TYPES } from './forum-types.js';
import { FILTER_COLUMNS } from './query.js';
import { highestScope } from './policy.js';
import { cmsContentTypes } from './tables.js';

type Schema = Record<string, unknown>;

/** The JSON Schema of one field's value (OpenAPI and the AI drafting prompt). */
export function fieldSchema(field: FieldDefinition): Schema {
  const options = field.options ?? {};
  switch (field.type) {
    case 'number':
      return {
        type: options.integer ? 'integer' : 'number',
        ...(options.min !== undefined ? { minimum: options.min } : {}),
        ...(options.max !== undefined ? { maximum: options.max } : {}),
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'enum':
      return { type: 'string', enum: options.values ?? [] };
    case 'relation':
      return { type: 'string', description: `The id of a ${options.type} entry; with include= the entry itself.` };
    case 'media':
      return { type: 'string', description: 'An http(s) URL or a path on the site.' };
    case 'json':
      return {};
    case 'slug':
      return { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$' };
    default:
      return {
        type: 'string',
        ...(options.max_length !== undefined ? { maxLength: options.max_length } : {}),
        ...(field.type === 'markdown' ? { description: 'Markdown.' } : {}),
      };
  }
}

/** The `data` of a type's entries; `required` only for writes (reads may select fields). */
function dataSchema(fields: readonly FieldDefinition[], write = false): Schema {
  const required = write ? fields.filter((f) => f.required).map((f) => f.name) : [];
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    ...(required.length > 0 ? { required } : {}),
  };
}

/**
 * The generic list's filters as one flat map, `filter[<field>]=<value>` (eq): generators serialize a
 * map of strings as a deepObject, not a nested one. Each typed path declares every field and
 * operator as a parameter of its own instead (`typedFilters`).
 */
const FILTER_PARAMETER = {
  in: 'query',
  name: 'filter',
  style: 'deepObject',
  explode: true,
  required: false,
  schema: { type: 'object', additionalProperties: { type: 'string' } },
  description:
    '`filter[<field>]=<value>` keeps entries whose field equals the value. The server also takes `filter[<field>][<op>]=<value>` with ops eq ne lt lte gt gte in contains (each field lists its own in the content type; `in` takes a comma list); the typed paths `/entries/<type>` declare each as a parameter.',
};

/** The filters the forum's views take: one field each, eq only (forum-views.ts). */
const FORUM_FILTERS: Record<string, string | undefined> = {
  forums: 'category_id',
  topics: 'forum_id',
  posts: 'topic_id',
};

/** One plain query parameter per filterable field and operator of a type: `filter[title][eq]`. */
function typedFilters(slug: string, fields: readonly FieldDefinition[]): Schema[] {
  const parameter = (name: string, op: FilterOp, schema: Schema): Schema => ({
    in: 'query',
    name: `filter[${name}][${op}]`,
    required: false,
    schema: op === 'in' ? { type: 'string', description: 'A comma-separated list.' } : schema,
    description: `Entries whose \`${name}\` ${FILTER_TEXT[op]} the value.`,
  });
  if (FORUM_TYPE_SLUGS.includes(slug)) {
    const name = FORUM_FILTERS[slug];
    return name ? [parameter(name, 'eq', { type: 'string' })] : [];
  }
  const columns = Object.values(FILTER_COLUMNS).flatMap((column) =>
    column.ops.map((op) =>
      parameter(column.name, op, column.time ? { type: 'string', format: 'date-time' } : { type: 'string' }),
    ),
  );
  const data = fields.flatMap((field) =>
    FIELD_KINDS[field.type].ops.map((op) => parameter(field.name, op, filterValueSchema(field))),
  );
  return [...columns, ...data];
}

const FILTER_TEXT: Record<FilterOp, string> = {
  eq: 'equals',
  ne: 'differs from',
  lt: 'is less than',
  lte: 'is at most',
  gt: 'is greater than',
  gte: 'is at least',
  in: 'is one of',
  contains: 'contains',
};

/** A filter value travels as text: the field's own schema where it is a string, else its string form. */
function filterValueSchema(field: FieldDefinition): Schema {
  const schema = fieldSchema(field);
  if (schema.type === 'string')
    return {
      type: 'string',
      ...(schema.format ? { format: schema.format } : {}),
      ...(schema.enum ? { enum: schema.enum } : {}),
    };
  if (schema.type === 'boolean') return { type: 'string', enum: ['true', 'false'] };
  return { type: 'string', description: `A ${String(schema.type)}.` };
}

/** Adds one typed copy of the entry paths for a content type. */
function addType(doc: OpenApiDocument, prefix: string, slug: string, fields: readonly FieldDefinition[]): void {
  const name = `entry-${slug}`;
  // The generic entry schema (POST's 201 answer), with this type's slug and data.
  const generic = (
    doc.paths[`${prefix}/entries/{type}`]?.post?.responses as Record<
      string,
      { content: Record<string, { schema: Schema & { properties: Schema } }> }
    >
  )['201']!.content['application/json']!.schema;
  doc.components.schemas![name] = {
    ...structuredClone(generic),
    title: `${slug} entry`,
    properties: { ...structuredClone(generic.properties), type: { const: slug }, data: dataSchema(fields) },
  };
  const ref = { $ref: `#/components/schemas/${name}` };
  const typed = (
    item: Record<string, Record<string, unknown>> | undefined,
  ): Record<string, Record<string, unknown>> => {
    const copy = structuredClone(item ?? {});
    for (const operation of Object.values(copy)) {
      // The generic operation's id, told apart per type (`getApiCmsV1EntriesType` -> `...Type_articles`).
      operation.operationId = `${String(operation.operationId)}_${slug.replace(/[^A-Za-z0-9]+/g, '_')}`;
      operation.parameters = ((operation.parameters as Array<{ in: string; name: string }> | undefined) ?? []).flatMap(
        (p) => {
          if (p.in === 'path' && p.name === 'type') return [];
          return p.in === 'query' && p.name === 'filter' ? typedFilters(slug, fields) : [p];
        },
      );
      operation.tags = [`entries: ${slug}`];
      const responses = operation.responses as
        Record<string, { content?: Record<string, { schema: Schema }> }> | undefined;
      for (const response of Object.values(responses ?? {})) {
        const content = response.content?.['application/json'];
        if (!content) continue;
        content.schema = content.schema.type === 'array' ? { type: 'array', items: ref } : ref;
      }
      const body = (
        operation.requestBody as { content?: Record<string, { schema: Schema & { properties?: Schema } }> } | undefined
      )?.content?.['application/json'];
      if (body?.schema.properties) body.schema.properties.data = dataSchema(fields, true);
    }
    return copy;
  };
  doc.paths[`${prefix}/entries/${slug}`] = typed(doc.paths[`${prefix}/entries/{type}`]);
  doc.paths[`${prefix}/entries/${slug}/{id}`] = typed(doc.paths[`${prefix}/entries/{type}/{id}`]);
}

/** Whether the request may read the content model of the site: a Content API key of it, or its owner. */
async function readsModel(request: FastifyRequest, siteId: string): Promise<boolean> {
  const token = bearerToken(request);
  if (token) {
    const key = await request.server.services.credentials.verify(token, 'api_key');
    return !!key && key.siteId === siteId && highestScope(key.scopes) !== undefined;
  }
  const user = await sessionUser(request);
  const site = await request.server.services.sites.get(siteId);
  return !!user && !!site && canManageSite(user, site);
}

export function cmsOpenApi(prefix: string) {
  return async (doc: OpenApiDocument, request: FastifyRequest): Promise<OpenApiDocument> => {
    const list = doc.paths[`${prefix}/entries/{type}`]?.get as { parameters?: unknown[] } | undefined;
    list?.parameters?.push(FILTER_PARAMETER);
    addType(doc, prefix, ARTICLES.slug, ARTICLES.fields);
    for (const type of FORUM_TYPES) addType(doc, prefix, type.slug, type.fields);
    const target = request.target;
    if (target.kind === 'site' && (await readsModel(request, target.site))) {
      const custom = await request.server.deps.database.db
        .select()
        .from(cmsContentTypes)
        .where(eq(cmsContentTypes.siteId, target.site));
      for (const type of custom) if (!type.builtin) addType(doc, prefix, type.slug, type.fields);
    }
    doc.tags = describedTags(doc.paths);
    return doc;
  };
}
