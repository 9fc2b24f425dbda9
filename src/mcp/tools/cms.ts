// The content group (5 tools) over the Content API of the tenant, with an API key: a cms-read key
// gets the three read tools, a cms-write (or admin) key all five.
import { z } from 'zod';
import { ApiProblem, type BlumeClient } from '../api.js';
import { defineTool, type ToolDefinition, type ToolGroup } from '../tool.js';
import { pageArgs, pageNote, pageOf, pageQuery, paginationOf, Pagination } from './pagination.js';

const API = '/api/cms/v1';
const Entry = z.looseObject({
  id: z.string(),
  type: z.string(),
  slug: z.string().nullable(),
  status: z.string(),
  data: z.record(z.string(), z.unknown()),
});
type Entry = z.infer<typeof Entry>;
const ContentType = z.looseObject({ slug: z.string(), name: z.string() });
const status = z.enum(['draft', 'published']);
const typeArg = z
  .string()
  .min(1)
  .describe('Content type slug (articles, topics, posts, forums, categories, or a custom type).');

/** `{title: 'x', views: {gt: '3'}}` -> filter[title]=x&filter[views][gt]=3 (DESIGN section 11). */
function filterQuery(
  filter: Record<string, string | number | boolean | Record<string, string | number | boolean>> | undefined,
): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [field, condition] of Object.entries(filter ?? {})) {
    if (typeof condition === 'object')
      for (const [op, value] of Object.entries(condition)) query[`filter[${field}][${op}]`] = String(value);
    else query[`filter[${field}]`] = String(condition);
  }
  return query;
}

function entryPath(type: string, idOrSlug?: string): string {
  return `${API}/entries/${encodeURIComponent(type)}${idOrSlug ? `/${encodeURIComponent(idOrSlug)}` : ''}`;
}

function readTools(client: BlumeClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'cms_list_content_types',
      title: 'List content types',
      description: "The site's content types (built-in and custom) with their fields.",
      input: { ...pageArgs },
      output: { content_types: z.array(ContentType), pagination: Pagination },
      hints: { readOnly: true },
      run: async (args) => {
        const answer = await client.call<
          z.infer<typeof ContentType>[] | { content_types: z.infer<typeof ContentType>[] }
        >('cms', 'GET', `${API}/content-types`);
        const { items, pagination } = pageOf(
          Array.isArray(answer.data) ? answer.data : answer.data.content_types,
          args,
        );
        return {
          data: { content_types: items, pagination },
          text: `${items.length} content types with their fields: ${pageNote('cms_list_content_types', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'cms_list_entries',
      title: 'List entries',
      description:
        'Entries of a type, with filters (field: value, or field: {op: value} with ops eq ne lt lte gt gte in contains), sort (e.g. "-published_at,title") and status (draft/any need a cms-write key).',
      input: {
        type: typeArg,
        filter: z
          .record(
            z.string(),
            z.union([
              z.string(),
              z.number(),
              z.boolean(),
              z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
            ]),
          )
          .optional(),
        sort: z.string().optional(),
        status: z.enum(['published', 'draft', 'any']).optional(),
        ...pageArgs,
      },
      output: { entries: z.array(Entry), pagination: Pagination },
      hints: { readOnly: true },
      run: async ({ type, filter, sort, status: wanted, ...args }) => {
        const query = pageQuery(args);
        const answer = await client.call<Entry[]>('cms', 'GET', entryPath(type), {
          query: { ...filterQuery(filter), sort, status: wanted, ...query },
        });
        const pagination = paginationOf(answer, query.page_size);
        return {
          data: { entries: answer.data, pagination },
          text: `${answer.data.length} ${type} entries with their data: ${pageNote('cms_list_entries', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'cms_get_entry',
      title: 'Read an entry',
      description: 'One entry of a type by id or slug.',
      input: { type: typeArg, id_or_slug: z.string().min(1), status: z.enum(['published', 'draft', 'any']).optional() },
      output: { entry: Entry },
      hints: { readOnly: true },
      run: async ({ type, id_or_slug, status: wanted }) => {
        const entry = (
          await client.call<Entry>('cms', 'GET', entryPath(type, id_or_slug), { query: { status: wanted } })
        ).data;
        return {
          data: { entry },
          text: `${entry.type} entry ${entry.id}${entry.slug ? ` (${entry.slug})` : ''}, ${entry.status}, with its data:`,
        };
      },
    }),
  ];
}

function writeTools(client: BlumeClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'cms_save_entry',
      title: 'Save an entry',
      description:
        "Creates an entry (no id_or_slug), or updates the entry with that id or slug. An update replaces all of the entry's data: " +
        'fields not sent are dropped (read it with cms_get_entry first and send every field you keep). Saves a draft or publishes.',
      input: {
        type: typeArg,
        id_or_slug: z.string().min(1).optional().describe('The entry to update, by id or slug; omit it to create one.'),
        slug: z.string().optional().describe("The entry's new slug."),
        status: status.optional().describe('draft (default for new entries) or published.'),
        data: z
          .record(z.string(), z.unknown())
          .describe("The entry's fields; an update replaces them all (fields not sent are dropped)."),
      },
      output: { entry: Entry, created: z.boolean(), dropped_fields: z.array(z.string()) },
      hints: { destructive: true, creates: true },
      run: async ({ type, id_or_slug, slug, status: wanted, data }) => {
        const body = { data, ...(slug ? { slug } : {}), ...(wanted ? { status: wanted } : {}) };
        if (!id_or_slug) {
          const entry = (await client.call<Entry>('cms', 'POST', entryPath(type), { json: body })).data;
          return {
            data: { entry, created: true, dropped_fields: [] },
            text: `Created ${entry.type} entry ${entry.id} (${entry.status}).`,
          };
        }
        // The update route takes the entry's id: a slug is read first, as cms_get_entry reads it. The
        // write names the version read (If-Match), so dropped_fields is what this update dropped.
        const read = await client.call<Entry>('cms', 'GET', entryPath(type, id_or_slug), { query: { status: 'any' } });
        const current = read.data;
        const etag = read.headers.etag;
        const entry = (
          await client.call<Entry>('cms', 'PUT', entryPath(type, current.id), {
            json: body,
            headers: typeof etag === 'string' ? { 'if-match': etag } : {},
          })
        ).data;
        const dropped = Object.keys(current.data).filter((field) => !(field in data));
        return {
          data: { entry, created: false, dropped_fields: dropped },
          text: `Updated ${entry.type} entry ${entry.id} (${entry.status}); its data was replaced${
            dropped.length ? `, dropping ${dropped.join(', ')}` : ''
          }.`,
        };
      },
    }),
    defineTool({
      name: 'cms_generate_draft',
      title: 'Draft an entry with AI',
      description:
        "Asks the site's AI provider for an entry's fields from a prompt; saves nothing unless save_as_draft is true (then a draft entry).",
      input: { type: typeArg, prompt: z.string().min(1), save_as_draft: z.boolean().optional() },
      output: { data: z.record(z.string(), z.unknown()), entry: Entry.optional() },
      hints: { openWorld: true, creates: true },
      run: async ({ type, prompt, save_as_draft }) => {
        const { data } = await client.call<{ data: Record<string, unknown>; entry?: Entry }>(
          'cms',
          'POST',
          `${API}/ai-content/generate`,
          { json: { type, prompt, save_as_draft: save_as_draft ?? false } },
        );
        return {
          data,
          text: data.entry
            ? `Saved draft ${data.entry.id}.`
            : `Drafted fields: ${Object.keys(data.data).join(', ')} (not saved).`,
        };
      },
    }),
  ];
}

export const cmsTools: ToolGroup = {
  name: 'cms',
  credential: ({ apiKey }) => (apiKey ? 'apiKey' : undefined),
  tools: async ({ client }) => {
    const { tenantUrl, apiKey } = client.credentials;
    if (!tenantUrl || !apiKey) return [];
    // Answers only to a valid key with a Content API scope on a site whose plan has the API; a key
    // made for other APIs only (the help desk) is no problem to report.
    const types = await client.request<{ code?: string }>('cms', 'GET', `${API}/content-types`);
    if (types.status === 403 && types.data.code === 'scope_missing') return [];
    if (types.status !== 200) await client.call('cms', 'GET', `${API}/content-types`);
    // Drafts are visible to cms-write and admin keys only: the key's scope, asked without changing anything.
    const drafts = await client.request('cms', 'GET', entryPath('articles'), {
      query: { status: 'draft', page_size: 1 },
    });
    if (drafts.status === 200) return [...readTools(client), ...writeTools(client)];
    if (drafts.status === 403) return readTools(client);
    throw new ApiProblem(
      `Blume answered ${drafts.status} when asked for the API key's scope.`,
      drafts.status,
      undefined,
      {},
    );
  },
};
