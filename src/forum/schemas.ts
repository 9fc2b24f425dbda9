// Request and response schemas of the Forum API (snake_case, ids are strings, RFC 3339 times).
import { Type, type Static } from 'typebox';
import { PageQuery } from '../http/pagination.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);
/** Slugs of categories and forums: what the API schema and the admin pages accept. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$';
const Slug = Type.String({ pattern: SLUG_PATTERN, description: 'Lower-case letters, digits and hyphens.' });
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const Description = Type.String({ maxLength: 2000 });
const Visibility = Type.Union([Type.Literal('public'), Type.Literal('members'), Type.Literal('staff')], {
  description: 'public: everyone who may read the API; members: logged-in members; staff: moderators and admins.',
});
const RoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('moderator'), Type.Literal('member')]);
export const MAX_TITLE_LENGTH = 200;
export const MAX_BODY_LENGTH = 50_000;
const Title = Type.String({
  minLength: 1,
  maxLength: MAX_TITLE_LENGTH,
  description: 'Plain text, kept as typed (line breaks become spaces); escape it for the output it goes into.',
});
const Body = Type.String({ minLength: 1, maxLength: MAX_BODY_LENGTH, description: 'Markdown.' });

export const IdParams = Type.Object({ id: Id });
export const TokenParams = Type.Object({ token_id: Id });

// Structure ----------------------------------------------------------------------------------------

export const CategoryOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  position: Type.Integer(),
  created_at: Time,
});
export type CategoryOut = Static<typeof CategoryOut>;

export const CategoryBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    description: Type.Optional(Description),
    position: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export const CategoryPatch = Type.Partial(CategoryBody, { additionalProperties: false });

export const ForumOut = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: Type.String(),
  category_id: Type.Union([Type.String(), Type.Null()]),
  position: Type.Integer(),
  visibility: Visibility,
  locked: Type.Boolean(),
  topic_count: Type.Integer({ description: 'Topics you can see.' }),
  post_count: Type.Integer({ description: 'Live posts in topics you can see.' }),
  last_post_at: NullableTime,
  created_at: Time,
});
export type ForumOut = Static<typeof ForumOut>;

export const ForumBody = Type.Object(
  {
    name: Name,
    slug: Slug,
    category_id: Type.Optional(Type.Union([Id, Type.Null()])),
    description: Type.Optional(Description),
    visibility: Type.Optional(Visibility),
    position: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })),
    locked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const ForumPatch = Type.Partial(ForumBody, { additionalProperties: false });

// Topics and posts ---------------------------------------------------------------------------------

const AvatarUrl = Type.String({
  description:
    "Path on the instance of the member's avatar: the picture it uploaded, or its initials on a colour, " +
    'generated as SVG.',
});
/** A member as posts, topics, flags and notifications name it. */
const MemberRef = Type.Object({ id: Type.String(), username: Type.String(), avatar_url: AvatarUrl });
export type MemberRefOut = Static<typeof MemberRef>;
const AuthorOut = Type.Union([MemberRef, Type.Null()]);

export const TopicOut = Type.Object({
  id: Type.String(),
  forum_id: Type.String(),
  title: Type.String(),
  slug: Type.String(),
  author: AuthorOut,
  pinned: Type.Boolean(),
  locked: Type.Boolean(),
  hidden: Type.Boolean(),
  post_count: Type.Integer({ description: 'Live posts, the opening post included.' }),
  reply_count: Type.Integer(),
  last_post_at: Time,
  created_at: Time,
});
export type TopicOut = Static<typeof TopicOut>;

export const TopicListQuery = Type.Object({
  ...PageQuery.properties,
  forum_id: Type.Optional(Id),
  filter: Type.Optional(
    Type.Union([Type.Literal('latest'), Type.Literal('unread')], {
      description:
        'latest (the default): every topic you can see, pinned first, then by latest post; unread (members): ' +
        'topics with posts you have not read, by latest post.',
    }),
  ),
});
export const TopicReadBody = Type.Object({ post_id: Id }, { additionalProperties: false });
export const TopicReadOut = Type.Object({
  topic_id: Type.String(),
  last_read_post_id: Type.String(),
  last_read_at: Time,
});
export const AllReadOut = Type.Object({
  read_before: Type.String({
    format: 'date-time',
    description: 'Every topic whose last post is at or before this counts as read.',
  }),
});
export const NewTopicBody = Type.Object({ forum_id: Id, title: Title, body: Body }, { additionalProperties: false });
export const TopicPatch = Type.Object(
  {
    title: Type.Optional(Title),
    pinned: Type.Optional(Type.Boolean()),
    locked: Type.Optional(Type.Boolean()),
    hidden: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const postFields = {
  id: Type.String(),
  topic_id: Type.String(),
  parent_id: Type.Union([Type.String(), Type.Null()]),
  author: AuthorOut,
  body: Type.String({ description: 'Markdown source; empty when deleted.' }),
  body_html: Type.String({ description: 'Sanitized HTML rendered from the source; empty when deleted.' }),
  deleted: Type.Boolean(),
  like_count: Type.Integer({ minimum: 0, description: 'Members who like the post.' }),
  created_at: Time,
  edited_at: NullableTime,
};

export const PostOut = Type.Object(postFields);
export const LikeOut = Type.Object({
  like_count: Type.Integer({ minimum: 0 }),
  liked: Type.Boolean({ description: 'Whether you like the post now.' }),
});
export type LikeOut = Static<typeof LikeOut>;

export const NotificationQuery = Type.Object({
  ...PageQuery.properties,
  unread: Type.Optional(
    Type.Boolean({ description: 'Only unread ones; X-Pagination `total` is then the unread count.' }),
  ),
});
export const NotificationOut = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('reply'), Type.Literal('mention'), Type.Literal('like')]),
  topic_id: Type.String(),
  post_id: Type.String(),
  actor: AuthorOut,
  read: Type.Boolean(),
  created_at: Time,
});
export type NotificationOut = Static<typeof NotificationOut>;
export const NotificationsReadBody = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 200,
        description: 'Which to mark read; all of yours without it.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const NotificationsReadOut = Type.Object({ unread_count: Type.Integer({ minimum: 0 }) });

const MailDelivery = Type.Union([Type.Literal('immediately'), Type.Literal('digest'), Type.Literal('never')]);
const mailSettingFields = {
  reply: {
    ...MailDelivery,
    description: 'Mail when someone replies to your topic or post: immediately, in the digest, or never.',
  },
  mention: { ...MailDelivery, description: 'Mail when someone mentions you.' },
  like: { ...MailDelivery, description: 'Mail when someone likes your post.' },
  digest: Type.Union([Type.Literal('daily'), Type.Literal('weekly'), Type.Literal('never')], {
    description:
      'How often the digest comes: your unread notifications of the kinds set to `digest`, and popular new ' +
      'topics you may read. A kind can be `digest` only while this is not `never`.',
  }),
};
export const MailSettingsOut = Type.Object(mailSettingFields);
export const MailSettingsPatch = Type.Partial(Type.Object(mailSettingFields), { additionalProperties: false });

const FlagReason = Type.Union([
  Type.Literal('spam'),
  Type.Literal('inappropriate'),
  Type.Literal('off_topic'),
  Type.Literal('other'),
]);
export const FlagState = Type.Union([Type.Literal('open'), Type.Literal('hidden'), Type.Literal('dismissed')]);
/** How long a flag's note for the moderators may be. */
export const MAX_FLAG_NOTE_LENGTH = 1000;
export const NewFlagBody = Type.Object(
  {
    reason: FlagReason,
    note: Type.Optional(
      Type.String({ maxLength: MAX_FLAG_NOTE_LENGTH, description: 'What the moderators should know.' }),
    ),
  },
  { additionalProperties: false },
);
export const FlagQuery = Type.Object({ ...PageQuery.properties, state: Type.Optional(FlagState) });
/** How long a moderator's reason for a warning or suspension may be. */
const Reason = Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: 'What the member reads.' });
const Until = Type.String({
  format: 'date-time',
  description: 'When the suspension ends (in the future); leave it out for an indefinite one.',
});
export const FlagPatch = Type.Object(
  {
    action: Type.Union([Type.Literal('hide'), Type.Literal('dismiss'), Type.Literal('warn'), Type.Literal('suspend')], {
      description:
        'hide: the post becomes a tombstone; dismiss: it stays; warn and suspend hide the post and warn or ' +
        'suspend its author (they need `reason`). Each closes every open flag of the post and is written to ' +
        'the moderation log.',
    }),
    reason: Type.Optional(Reason),
    until: Type.Optional(Until),
  },
  { additionalProperties: false },
);
export const WarningBody = Type.Object({ reason: Reason, post_id: Type.Optional(Id) }, { additionalProperties: false });
export const SuspensionBody = Type.Object(
  { reason: Reason, until: Type.Optional(Until), post_id: Type.Optional(Id) },
  { additionalProperties: false },
);
const ModActionName = Type.Union([
  Type.Literal('hide'),
  Type.Literal('dismiss'),
  Type.Literal('warn'),
  Type.Literal('suspend'),
  Type.Literal('unsuspend'),
  Type.Literal('approve'),
  Type.Literal('reject'),
]);
export const ModLogQuery = Type.Object({
  ...PageQuery.properties,
  member_id: Type.Optional(Id),
  action: Type.Optional(ModActionName),
});
const NamedMember = Type.Union([
  Type.Object({
    id: Type.Union([Type.String(), Type.Null()], { description: 'Null once the member is deleted.' }),
    username: Type.String(),
  }),
  Type.Null(),
]);
export const ModActionOut = Type.Object({
  id: Type.String(),
  action: ModActionName,
  moderator: NamedMember,
  member: NamedMember,
  post_id: Type.Union([Type.String(), Type.Null()]),
  flag_id: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  until: Type.Union([Time, Type.Null()], { description: 'The end of a suspension; null for an indefinite one.' }),
  created_at: Time,
});
export type ModActionOut = Static<typeof ModActionOut>;
export const WarningOut = Type.Object({
  id: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  post_id: Type.Union([Type.String(), Type.Null()]),
  acknowledged_at: NullableTime,
  created_at: Time,
});
export type WarningOut = Static<typeof WarningOut>;
export const WarningQuery = Type.Object({
  unacknowledged: Type.Optional(Type.Boolean({ description: 'Only warnings not yet acknowledged.' })),
});
export const FlagOut = Type.Object({
  id: Type.String(),
  post_id: Type.String(),
  topic_id: Type.String(),
  reason: FlagReason,
  note: Type.Union([Type.String(), Type.Null()]),
  state: FlagState,
  reporter: AuthorOut,
  resolved_by: AuthorOut,
  resolved_at: NullableTime,
  created_at: Time,
  post: PostOut,
});
export type FlagOut = Static<typeof FlagOut>;
export type PostOut = Static<typeof PostOut>;

export const TopicCreatedOut = Type.Object({ ...TopicOut.properties, first_post: PostOut });
export type TopicCreatedOut = Static<typeof TopicCreatedOut>;

/** A post with its descendants; registered as a shared schema because it refers to itself. */
export const ThreadedPostOut = Type.Object(
  { ...postFields, replies: Type.Array(Type.Ref('ForumThreadedPost')) },
  { $id: 'ForumThreadedPost' },
);
export type ThreadedPostOut = PostOut & { replies: ThreadedPostOut[] };
/** The threaded answer alone, as the plain JSON Schema `reply.compileSerializationSchema` takes. */
export const ThreadedPostList: Record<string, unknown> = { ...Type.Array(Type.Ref('ForumThreadedPost')) };
/** The classic answer alone, likewise. */
export const ClassicPostList: Record<string, unknown> = { ...Type.Array(PostOut) };

export const PostListQuery = Type.Object({
  ...PageQuery.properties,
  view: Type.Union([Type.Literal('classic'), Type.Literal('threaded')], {
    default: 'classic',
    description: 'classic: every post, oldest first. threaded: top-level posts paginated, replies nested.',
  }),
});
export const NewPostBody = Type.Object({ body: Body, parent_id: Type.Optional(Id) }, { additionalProperties: false });
export const PostPatch = Type.Object({ body: Body }, { additionalProperties: false });

export const SearchQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.String({ minLength: 1, maxLength: 200, description: 'Words, "phrases", -excluded.' }),
  forum_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Only topics of this forum (id or slug).' }),
  ),
  category_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Only topics of the forums of this category (id or slug).',
    }),
  ),
  author: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'Only what this member wrote (username, any case): matching posts, and titles of their topics.',
    }),
  ),
  after: Type.Optional(
    Type.String({ format: 'date', description: 'Only what was written on or after this day (UTC).' }),
  ),
  before: Type.Optional(Type.String({ format: 'date', description: 'Only what was written before this day (UTC).' })),
});
export const SearchHitOut = Type.Object({
  topic: TopicOut,
  post_id: Type.Union([Type.String(), Type.Null()], { description: 'The best-matching post, if a post matched.' }),
  excerpt: Type.String({ description: 'Plain text around the match.' }),
  excerpt_html: Type.String({ description: 'The excerpt as HTML: escaped text with the matched words in `<mark>`.' }),
  title_html: Type.String({ description: 'The topic title as HTML: escaped text with the matched words in `<mark>`.' }),
  rank: Type.Number(),
});
export type SearchHitOut = Static<typeof SearchHitOut>;

// Members and tokens -------------------------------------------------------------------------------

export const MemberOut = Type.Object({
  id: Type.String(),
  username: Type.String(),
  email: Type.String(),
  avatar_url: AvatarUrl,
  role: RoleSchema,
  banned: Type.Boolean(),
  trust_level: Type.Integer({
    minimum: 0,
    maximum: 1,
    description: '0: a new member (harder limits, links shown as text, no uploads); 1: trusted.',
  }),
  suspension: Type.Union(
    [Type.Object({ until: NullableTime, reason: Type.Union([Type.String(), Type.Null()]) }), Type.Null()],
    { description: 'The suspension that stands now, if any (`until` null: indefinite).' },
  ),
  site_owner: Type.Boolean({ description: "The site owner's platform account acting in its community." }),
  created_at: Time,
});
export type MemberOut = Static<typeof MemberOut>;

export const NewMemberBody = Type.Object(
  {
    username: Type.String({ pattern: '^[A-Za-z0-9_.-]{2,40}$' }),
    email: Type.String({ format: 'email', maxLength: 254 }),
    password: Type.String({ minLength: 10, maxLength: 200 }),
    role: Type.Optional(RoleSchema),
  },
  { additionalProperties: false },
);
export const MemberPatch = Type.Object(
  { role: Type.Optional(RoleSchema), banned: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const TokenRequestBody = Type.Object(
  {
    login: Type.String({ minLength: 1, maxLength: 254, description: 'Username or e-mail.' }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' })),
  },
  { additionalProperties: false },
);

// Waitlist -----------------------------------------------------------------------------------------

export const ServiceKeyParams = Type.Object({
  service_key: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
    description: 'Name of the waitlist, chosen by the caller.',
  }),
});
export const WaitlistBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254 }) },
  { additionalProperties: false },
);
export const WaitlistJoinedOut = Type.Object({ service_key: Type.String(), email: Type.String() });
export const WaitlistEntryOut = Type.Object({
  id: Type.String(),
  service_key: Type.String(),
  email: Type.String(),
  created_at: Time,
});
export type WaitlistEntryOut = Static<typeof WaitlistEntryOut>;
export const WaitlistQuery = Type.Object({
  ...PageQuery.properties,
  service_key: Type.Optional(Type.String({ maxLength: 64 })),
});
export const WaitlistExportQuery = Type.Object({ service_key: Type.Optional(Type.String({ maxLength: 64 })) });

// OpenAPI security requirements: readers may be anonymous when public read is on.
type Security = Array<Record<string, string[]>>;
export const readerSecurity: Security = [{ forumToken: [] }, {}];
export const memberSecurity: Security = [{ forumToken: [] }];

export const UploadForm = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description:
        'An image (PNG, JPEG, GIF, WebP) or a PDF, ZIP or plain-text file, at most 8 MiB; the bytes must be ' +
        'what the name and type say. SVG is refused.',
    }),
  },
  { required: ['file'] },
);
export const UploadParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const UploadOut = Type.Object({
  id: Type.String(),
  url: Type.String({
    description: 'Path on the instance that serves the file (images inline, other files as downloads).',
  }),
  markdown: Type.String({ description: 'Markdown that shows the upload in a post: an image, or a link to the file.' }),
  filename: Type.String(),
  content_type: Type.String({ description: 'Read from the bytes, not from the name.' }),
  kind: Type.Union([Type.Literal('image'), Type.Literal('file')]),
  size: Type.Integer({ description: 'Bytes as stored: images without their metadata.' }),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Time,
});
export type UploadOut = Static<typeof UploadOut>;

// Drafts -------------------------------------------------------------------------------------------

export const DRAFT_KEY_PATTERN = '^(topic|forum)-[A-Za-z0-9_-]{1,100}$';
export const DraftParams = Type.Object({
  key: Type.String({
    pattern: DRAFT_KEY_PATTERN,
    maxLength: 106,
    description: '`topic-{topic id}` for a reply to a topic, `forum-{forum id}` for a new topic in a forum.',
  }),
});
export const DraftBody = Type.Object(
  {
    title: Type.Optional(
      Type.String({ maxLength: MAX_TITLE_LENGTH, description: "A new topic's title (forum drafts only)." }),
    ),
    body: Type.String({ maxLength: MAX_BODY_LENGTH, description: 'Markdown, as typed so far; may be empty.' }),
  },
  { additionalProperties: false },
);
export const DraftOut = Type.Object({
  key: Type.String(),
  title: Type.Union([Type.String(), Type.Null()]),
  body: Type.String(),
  updated_at: Time,
});
export type DraftOut = Static<typeof DraftOut>;

// The first-post hold ------------------------------------------------------------------------------

export const HeldPostOut = Type.Object(
  {
    id: Type.String(),
    state: Type.Literal('held', { description: 'Waits for a moderator; only you and moderators can read it.' }),
    kind: Type.Union([Type.Literal('topic'), Type.Literal('reply')]),
    forum_id: Type.Union([Type.String(), Type.Null()]),
    title: Type.Union([Type.String(), Type.Null()]),
    topic_id: Type.Union([Type.String(), Type.Null()]),
    parent_id: Type.Union([Type.String(), Type.Null()]),
    body: Type.String(),
    author: MemberRef,
    created_at: Time,
  },
  { description: "A member's first post, held for a moderator (FORUM_HOLD_FIRST_POSTS)." },
);
export type HeldPostOut = Static<typeof HeldPostOut>;
export const HeldPostPatch = Type.Object(
  {
    action: Type.Union([Type.Literal('approve'), Type.Literal('reject')], {
      description: 'approve: the post is written now, as its author; reject: it is deleted.',
    }),
    reason: Type.Optional(Type.String({ maxLength: 1000, description: 'For the moderation log.' })),
  },
  { additionalProperties: false },
);
export const HeldDecisionOut = Type.Object({
  action: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
  post_id: Type.Union([Type.String(), Type.Null()], { description: 'The post written on approval.' }),
  topic_id: Type.Union([Type.String(), Type.Null()]),
});
