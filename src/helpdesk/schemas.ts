// Request and response schemas of the Help desk API (DESIGN section 11).
import { Type, type Static } from 'typebox';
import { optionalBody } from '../http/openapi.js';
import { PageQuery } from '../http/pagination.js';

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
const Status = Type.Union([
  Type.Literal('new'),
  Type.Literal('open'),
  Type.Literal('pending'),
  Type.Literal('on_hold'),
  Type.Literal('solved'),
  Type.Literal('closed'),
]);
export const Priority = Type.Union([
  Type.Literal('low'),
  Type.Literal('normal'),
  Type.Literal('high'),
  Type.Literal('urgent'),
]);
const Channel = Type.Union([Type.Literal('web'), Type.Literal('email'), Type.Literal('api')]);
const Tag = Type.String({ minLength: 1, maxLength: 50 });
const Id = Type.String({ minLength: 1, maxLength: 100 });

export const helpdeskSecurity: Array<Record<string, string[]>> = [{ apiKey: [] }, { forumToken: [] }, { session: [] }];

export const TicketParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, description: 'The ticket id or its number.' }),
});
export const IdParams = Type.Object({ id: Id });
export const AttachmentParams = Type.Object({
  id: TicketParams.properties.id,
  entry_id: Type.String({ minLength: 1, maxLength: 100 }),
  index: Type.Integer({
    minimum: 1,
    maximum: 1000,
    description: "The attachment's place in the entry's list, from 1.",
  }),
});

/** The longest entry body, in characters: the API's limit, and where inbound mail is cut (mail/inbound.ts). */
export const ENTRY_BODY_MAX_CHARS = 100_000;

export const TicketBody = Type.Object(
  {
    subject: Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' }),
    body: Type.String({ minLength: 1, maxLength: ENTRY_BODY_MAX_CHARS, description: 'Markdown.' }),
    requester: Type.Object(
      { email: Type.String({ minLength: 3, maxLength: 254 }), name: Type.Optional(Type.String({ maxLength: 200 })) },
      { additionalProperties: false },
    ),
    priority: Type.Optional(Priority),
    category_id: Type.Optional(Type.Union([Id, Type.Null()])),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 20 })),
  },
  { additionalProperties: false },
);
export type TicketBody = Static<typeof TicketBody>;

export const TicketPatch = Type.Object(
  {
    status: Type.Optional(Status),
    priority: Type.Optional(Priority),
    category_id: Type.Optional(Type.Union([Id, Type.Null()])),
    assignee_id: Type.Optional(Type.Union([Id, Type.Null()])),
    tags: Type.Optional(Type.Array(Tag, { maxItems: 20 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type TicketPatch = Static<typeof TicketPatch>;

export const TICKET_SORTS = ['created_at', 'updated_at', 'number', 'priority', 'status', 'sla_due'] as const;

export const TicketListQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.String({ maxLength: 100, description: 'A status, or a comma list of them.' })),
  priority: Type.Optional(Type.String({ maxLength: 100, description: 'A priority, or a comma list of them.' })),
  category: Type.Optional(Type.String({ maxLength: 100, description: 'A category id, or `none`.' })),
  assignee: Type.Optional(
    Type.String({ maxLength: 100, description: 'An agent id, `none` (unassigned) or `me` (the calling agent).' }),
  ),
  requester: Type.Optional(Type.String({ maxLength: 254, description: "A requester's contact id or e-mail address." })),
  tag: Type.Optional(Tag),
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Full-text search over subject and thread.' }),
  ),
  sla: Type.Optional(Type.Union([Type.Literal('breached'), Type.Literal('at_risk')])),
  created_after: Type.Optional(
    Type.String({
      maxLength: 40,
      description: 'Tickets opened at or after this date (`2026-11-01`, midnight UTC) or time (ISO 8601).',
    }),
  ),
  created_before: Type.Optional(
    Type.String({ maxLength: 40, description: 'Tickets opened before this date (midnight UTC) or time (ISO 8601).' }),
  ),
  sort: Type.Optional(
    Type.String({
      pattern: `^-?(${TICKET_SORTS.join('|')})$`,
      default: '-updated_at',
      description:
        'A field, `-` for descending. `sla_due`: the next SLA due time of unsolved tickets, soonest (or most ' +
        'overdue) first; solved and closed tickets last.',
    }),
  ),
});
export type TicketListQuery = Static<typeof TicketListQuery>;

const SlaOut = Type.Object({
  first_response_due_at: NullableTime,
  resolution_due_at: NullableTime,
  paused: Type.Boolean({ description: 'The clock is stopped: the ticket is pending or on hold.' }),
  breached: Type.Boolean(),
  at_risk: Type.Boolean({ description: 'Less than a quarter of a target remains.' }),
});

const RequesterOut = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
});

export const TicketOut = Type.Object({
  id: Type.String(),
  number: Type.Integer(),
  subject: Type.String(),
  status: Status,
  priority: Priority,
  category_id: Type.Union([Type.String(), Type.Null()]),
  assignee_id: Type.Union([Type.String(), Type.Null()]),
  requester: RequesterOut,
  channel: Channel,
  tags: Type.Array(Type.String()),
  follow_up_of: Type.Union([Type.String(), Type.Null()]),
  created_at: Time,
  updated_at: Time,
  first_response_at: NullableTime,
  solved_at: NullableTime,
  closed_at: NullableTime,
  sla: SlaOut,
});

export const MergeBody = Type.Object(
  {
    ticket_ids: Type.Array(Type.String({ minLength: 1, maxLength: 100, description: 'A ticket id or its number.' }), {
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      description: 'The tickets to merge into the one in the path.',
    }),
  },
  { additionalProperties: false },
);

export const MergeOut = Type.Object({
  ticket: TicketOut,
  merged: Type.Array(Type.Object({ id: Type.String(), number: Type.Integer() }), {
    description: 'The merged tickets, now closed.',
  }),
  moved_entries: Type.Integer({ description: "Entries that moved into the ticket's thread." }),
});

export const ReplyBody = Type.Object(
  {
    body: Type.String({ minLength: 1, maxLength: ENTRY_BODY_MAX_CHARS, description: 'Markdown.' }),
    internal: Type.Optional(
      Type.Boolean({ default: false, description: 'An internal note, never shown to the requester.' }),
    ),
  },
  { additionalProperties: false },
);

export const EntryOut = Type.Object({
  id: Type.String(),
  ticket_id: Type.String(),
  author: Type.Object({
    kind: Type.Union([Type.Literal('requester'), Type.Literal('agent')]),
    id: Type.Union([Type.String(), Type.Null()]),
  }),
  internal: Type.Boolean(),
  body: Type.String({ description: 'Markdown as written.' }),
  body_html: Type.String({ description: 'Sanitized HTML.' }),
  message_id: Type.Union([Type.String(), Type.Null()]),
  attachments: Type.Array(Type.Object({ filename: Type.String(), content_type: Type.String(), size: Type.Integer() })),
  created_at: Time,
});

export const RepliesQuery = Type.Object({
  ...PageQuery.properties,
  internal: Type.Optional(Type.Boolean({ default: true, description: 'Include internal notes.' })),
});

export const HistoryOut = Type.Object({
  id: Type.String(),
  event: Type.String(),
  actor: Type.Object({ kind: Type.String(), id: Type.Union([Type.String(), Type.Null()]) }),
  from: Type.Unknown(),
  to: Type.Unknown(),
  created_at: Time,
});

export const CategoryBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export const CategoryPatch = Type.Object(
  {
    name: Type.Optional(CategoryBody.properties.name),
    description: Type.Optional(CategoryBody.properties.description),
    archived: Type.Optional(
      Type.Boolean({ description: 'Archive the category (no ticket goes into it any more) or bring it back.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const CategoryOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  archived_at: Type.Union([Time, Type.Null()], { description: 'When it was archived; null while it is offered.' }),
  created_at: Time,
  updated_at: Time,
});

export const AgentPatch = Type.Object(
  {
    capacity: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    available: Type.Optional(Type.Boolean()),
    category_ids: Type.Optional(Type.Array(Id, { maxItems: 200, uniqueItems: true })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type AgentPatch = Static<typeof AgentPatch>;

export const AgentOut = Type.Object({
  id: Type.String({ description: 'The member id.' }),
  username: Type.String(),
  capacity: Type.Integer(),
  available: Type.Boolean(),
  category_ids: Type.Array(Type.String()),
  open_tickets: Type.Integer({ description: 'Assigned tickets that are new, open, pending or on hold.' }),
  created_at: Time,
});

export const SlaPolicyBody = Type.Object(
  {
    first_response_minutes: Type.Integer({ minimum: 1, maximum: 525_600 }),
    resolution_minutes: Type.Integer({ minimum: 1, maximum: 525_600 }),
  },
  { additionalProperties: false },
);
export const SlaPolicyOut = Type.Object({
  priority: Priority,
  first_response_minutes: Type.Integer(),
  resolution_minutes: Type.Integer(),
});

/** Every field optional: the common call has no body at all. */
export const DraftBody = optionalBody(
  Type.Object(
    {
      internal: Type.Optional(Type.Boolean({ default: false, description: 'Let the model read internal notes too.' })),
      instructions: Type.Optional(Type.String({ maxLength: 2000, description: 'What the reply should say or do.' })),
    },
    { additionalProperties: false },
  ),
);
export const DraftOut = Type.Object({
  id: Type.String(),
  body: Type.String({ description: 'Markdown, for an agent to edit and send.' }),
  created_at: Time,
  model: Type.String(),
});

export const TagOut = Type.Object({
  tag: Type.String(),
  tickets: Type.Integer({ description: 'Tickets that carry it.' }),
});
export const TagParams = Type.Object({ tag: Type.String({ minLength: 1, maxLength: 50 }) });
export const TagPatch = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 50, pattern: '\\S', description: 'The new name of the tag.' }) },
  { additionalProperties: false },
);
export const TagChangeOut = Type.Object({
  changed: Type.Integer({ description: 'Tickets whose tags changed.' }),
});

export const CannedReplyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    body: Type.String({
      minLength: 1,
      maxLength: 20_000,
      description:
        'Markdown. Placeholders filled when it is inserted: {{requester.name}}, {{requester.email}}, {{ticket.number}}, {{ticket.subject}}, {{agent.name}}.',
    }),
  },
  { additionalProperties: false },
);
export const CannedReplyPatch = Type.Partial(CannedReplyBody, { additionalProperties: false, minProperties: 1 });
export const CannedReplyOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  body: Type.String(),
  created_at: Time,
  updated_at: Time,
});
export const CannedReplyFilled = Type.Object({
  id: Type.String(),
  name: Type.String(),
  body: Type.String({ description: "The text with the ticket's placeholders filled, for the reply box." }),
});
