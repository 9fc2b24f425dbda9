// What leaves the Content API: content types and entries, in the DESIGN section 11 shapes.
import { FIELD_KINDS, type FieldDefinition } from './fields.js';
import type { ContentTypeOut, DeliveryOut, EntryOut, WebhookOut } from './schemas.js';
import type { ContentTypeRow, EntryRow, WebhookDeliveryRow, WebhookRow } from './tables.js';

function presentField(field: FieldDefinition): ContentTypeOut['fields'][number] {
  const kind = FIELD_KINDS[field.type];
  return {
    name: field.name,
    type: field.type,
    required: !!field.required,
    unique: !!field.unique,
    ...(field.default !== undefined ? { default: field.default } : {}),
    options: { ...field.options },
    filters: [...kind.ops],
    sortable: kind.sortable,
  };
}

export function presentType(row: ContentTypeRow): ContentTypeOut {
  return {
    slug: row.slug,
    name: row.name,
    source: row.builtin ? 'builtin' : 'custom',
    fields: row.fields.map(presentField),
    removed_fields: row.removedFields.map((f) => ({ name: f.name, type: f.type, removed_at: f.removed_at })),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A forum view's description: its fields are the forum's, read and written through the forum. */
export function presentForumType(slug: string, name: string, fields: FieldDefinition[]): ContentTypeOut {
  return {
    slug,
    name,
    source: 'forum',
    fields: fields.map(presentField),
    removed_fields: [],
    created_at: null,
    updated_at: null,
  };
}

interface EntryShape {
  /** `fields=`: only these data fields (and their HTML). */
  select?: readonly FieldDefinition[] | undefined;
  /** `include=`: relation fields replaced by the related entry (null when it is gone or not visible). */
  included?: ReadonlyMap<string, EntryOut> | undefined;
  include?: readonly FieldDefinition[] | undefined;
}

/** An entry of a stored type; values of removed fields stay stored but do not leave. */
export function presentEntry(
  type: Pick<ContentTypeRow, 'slug' | 'fields'>,
  row: EntryRow,
  shape: EntryShape = {},
): EntryOut {
  const names = (shape.select ?? type.fields).map((f) => f.name);
  const data: Record<string, unknown> = {};
  for (const name of names) if (row.data[name] !== undefined) data[name] = row.data[name];
  for (const field of shape.include ?? []) {
    if (!(field.name in data)) continue;
    data[field.name] = shape.included?.get(String(data[field.name])) ?? null;
  }
  const html: Record<string, string> = {};
  for (const [name, value] of Object.entries(row.html)) if (names.includes(name)) html[name] = value;
  return {
    id: row.id,
    type: type.slug,
    slug: row.slug,
    status: row.status,
    data,
    ...(Object.keys(html).length > 0 ? { html } : {}),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    published_at: row.publishedAt ? row.publishedAt.toISOString() : null,
  };
}

/** A subscription without its secret (only the create answer carries that, once). */
export function presentWebhook(row: WebhookRow): WebhookOut {
  return { id: row.id, url: row.url, events: row.events, created_at: row.createdAt.toISOString() };
}

export function presentDelivery(row: WebhookDeliveryRow): DeliveryOut {
  return {
    id: row.id,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    last_status: row.lastStatus,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt ? row.deliveredAt.toISOString() : null,
    payload: row.payload,
  };
}
