// Request and response schemas of the Content API (DESIGN section 11).
import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';
import { FIELD_NAME_PATTERN, FIELD_TYPES, MAX_TEXT_LENGTH } from './fields.js';

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
const TypeSlug = Type.String({
  pattern: '^[a-z][a-z0-9-]{0,62}$',
  description: 'Lower-case letters, digits and hyphens, starting with a letter.',
});
const EntrySlug = Type.String({
  pattern: '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$',
  description: 'Lower-case letters, digits and hyphens.',
});
const Status = Type.Union([Type.Literal('draft'), Type.Literal('published')]);

const FieldOptionsSchema = Type.Object(
  {
    min_length: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_TEXT_LENGTH })),
    max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    min: Type.Optional(Type.Number()),
    max: Type.Optional(Type.Number()),
    integer: Type.Optional(Type.Boolean()),
    values: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true }),
    ),
    type: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9-]{0,62}$' })),
  },
  { additionalProperties: false },
);

const FieldSchema = Type.Object(
  {
    name: Type.String({
      pattern: FIELD_NAME_PATTERN,
      description: 'Lower-case letters, digits and underscores, starting with a letter.',
    }),
    type: Type.Union(FIELD_TYPES.map((t) => Type.Literal(t))),
    required: Type.Optional(Type.Boolean()),
    unique: Type.Optional(Type.Boolean()),
    default: Type.Optional(Type.Unknown()),
    options: Type.Optional(FieldOptionsSchema),
  },
  { additionalProperties: false },
);

export const ContentTypeBody = Type.Object(
  {
    slug: TypeSlug,
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    fields: Type.Array(FieldSchema, { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type ContentTypeBody = Static<typeof ContentTypeBody>;

export const ContentTypeUpdateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    fields: Type.Array(FieldSchema, { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type ContentTypeUpdateBody = Static<typeof ContentTypeUpdateBody>;

const FieldOut = Type.Object({
  name: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  unique: Type.Boolean(),
  default: Type.Optional(Type.Unknown()),
  options: Type.Object({}, { additionalProperties: true }),
  filters: Type.Array(Type.String(), { description: 'Filter operators the field takes.' }),
  sortable: Type.Boolean(),
});

export const ContentTypeOut = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  source: Type.Union([Type.Literal('custom'), Type.Literal('builtin'), Type.Literal('forum')], {
    description: 'custom: defined through this API; builtin: articles; forum: a view onto the community forum.',
  }),
  fields: Type.Array(FieldOut),
  removed_fields: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), removed_at: Time }), {
    description:
      'Fields taken out of the type: their values are kept in the entries and come back when the field is added again.',
  }),
  created_at: NullableTime,
  updated_at: NullableTime,
});
export type ContentTypeOut = Static<typeof ContentTypeOut>;

export const TypeParams = Type.Object({ slug: TypeSlug });
export const EntryTypeParams = Type.Object({ type: Type.String({ minLength: 1, maxLength: 100 }) });
export const EntryParams = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 100 }),
  id: Type.String({ minLength: 1, maxLength: 200 }),
});

export const EntryBody = Type.Object(
  {
    slug: Type.Optional(Type.Union([EntrySlug, Type.Null()])),
    status: Type.Optional(Status),
    published_at: Type.Optional(
      Type.Union([Time, Type.Null()], {
        description: 'When a published entry goes live; a future time schedules it. Defaults to the first publish.',
      }),
    ),
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'The field values, by field name.' }),
  },
  { additionalProperties: false },
);
export type EntryBody = Static<typeof EntryBody>;

export const EntryOut = Type.Object({
  id: Type.String(),
  type: Type.String(),
  slug: Type.Union([Type.String(), Type.Null()]),
  status: Status,
  data: Type.Object({}, { additionalProperties: true }),
  html: Type.Optional(
    Type.Object({}, { additionalProperties: Type.String(), description: 'Sanitized HTML of each Markdown field.' }),
  ),
  created_at: Time,
  updated_at: Time,
  published_at: NullableTime,
});
export type EntryOut = Static<typeof EntryOut>;

export const RevisionParams = Type.Object({
  ...EntryParams.properties,
  version: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: "The entry's version this save made." }),
});

export const RestoreBody = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('draft'), Type.Literal('published')], {
        description:
          "The entry's state after the restore; default the state it has now (a restore brings back fields).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const RevisionOut = Type.Object({
  version: Type.Integer({ description: "The entry's version this save made; revisions are numbered by it." }),
  entry_id: Type.String(),
  slug: Type.Union([Type.String(), Type.Null()]),
  status: Status,
  published_at: NullableTime,
  data: Type.Object({}, { additionalProperties: true, description: 'The field values as saved.' }),
  author: Type.Object({
    kind: Type.Union([Type.Literal('member'), Type.Literal('account'), Type.Literal('api_key')]),
    id: Type.String(),
    name: Type.String({ description: "The author's name when they saved." }),
  }),
  restored_from: Type.Union([Type.Integer(), Type.Null()], { description: 'The revision this save restored.' }),
  changed: Type.Array(Type.String(), {
    description:
      'The fields (and `slug`, `status`, `published_at`) this save changed from the revision before it; every one set for the oldest revision kept.',
  }),
  created_at: Time,
});
export type RevisionOut = Static<typeof RevisionOut>;

const CommaList = Type.String({ maxLength: 1000, pattern: '^[A-Za-z0-9_,.-]*$' });

export const EntryListQuery = Type.Object(
  {
    ...PageQuery.properties,
    sort: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'Comma-separated fields; a leading `-` sorts descending, e.g. `-published_at,title`.',
      }),
    ),
    fields: Type.Optional(CommaList),
    status: Type.Optional(
      Type.Union([Type.Literal('published'), Type.Literal('draft'), Type.Literal('any')], { default: 'published' }),
    ),
    include: Type.Optional(CommaList),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  {
    additionalProperties: false,
    patternProperties: {
      '^filter\\[': Type.Union([Type.String({ maxLength: 2000 }), Type.Array(Type.String({ maxLength: 2000 }))]),
    },
    description:
      '`filter[<field>][<op>]=<value>` with ops eq ne lt lte gt gte in contains; `filter[<field>]=<value>` means eq; `in` takes a comma list.',
  },
);
export type EntryListQuery = Static<typeof EntryListQuery>;

export const EntryReadQuery = Type.Object(
  {
    fields: Type.Optional(CommaList),
    include: Type.Optional(CommaList),
    status: Type.Optional(
      Type.Union([Type.Literal('published'), Type.Literal('draft'), Type.Literal('any')], { default: 'published' }),
    ),
  },
  { additionalProperties: false },
);

export const GlobalParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 50 }) });
export const GlobalOut = Type.Object({
  slug: Type.String(),
  values: Type.Object(
    {},
    { additionalProperties: Type.String(), description: 'Applied settings of the group; secrets read back masked.' },
  ),
});

export const cmsSecurity: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

export const WebhookBody = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      pattern: '^https?://',
      maxLength: 2000,
      description: 'Where events are POSTed.',
    }),
    events: Type.Array(
      Type.Union([Type.Literal('entry.published'), Type.Literal('entry.updated'), Type.Literal('entry.deleted')]),
      { minItems: 1, maxItems: 3, uniqueItems: true },
    ),
  },
  { additionalProperties: false },
);
export type WebhookBody = Static<typeof WebhookBody>;

export const WebhookOut = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  created_at: Time,
});
export type WebhookOut = Static<typeof WebhookOut>;
export const WebhookCreatedOut = Type.Object({
  ...WebhookOut.properties,
  secret: Type.String({
    description:
      'Shown only in this response. Verify `X-Blume-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.',
  }),
});

export const DeliveryOut = Type.Object({
  id: Type.String(),
  event: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  last_status: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Time,
  delivered_at: NullableTime,
  payload: Type.Object({}, { additionalProperties: true }),
});
export type DeliveryOut = Static<typeof DeliveryOut>;

export const MediaUpload = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description: 'PNG, JPEG, GIF, WebP, AVIF or PDF, at most 10 MiB; the bytes must be what the name and type say.',
    }),
  },
  { required: ['file'] },
);
export const MediaParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const MediaOut = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'Path on the site that serves the file; the value a `media` field holds.' }),
  filename: Type.String(),
  content_type: Type.String(),
  size: Type.Integer(),
  alt: Type.String({ description: "Text that stands for the image where it cannot be seen; '' until written." }),
  width: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels, read from the bytes; null for PDF.' }),
  height: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels, read from the bytes; null for PDF.' }),
  sha256: Type.String(),
  created_at: Time,
});
export type MediaOut = Static<typeof MediaOut>;
export const MediaChange = Type.Object(
  { alt: Type.String({ maxLength: 500, description: "The alt text; '' removes it." }) },
  { additionalProperties: false },
);
