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
const Title = Type.String({ minLength: 1, maxLength: MAX_TITLE_LENGTH, description: 'Plain text, kept as typed (line breaks become spaces); escape it for the output it goes into.' });
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
  { name: Name, slug: Slug, description: Type.Optional(Description), position: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })) },
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

const AuthorOut = Type.Union([Type.Object({ id: Type.String(), username: Type.String() }), Type.Null()]);

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
      description: 'latest (the default): every topic you can see, pinned first, then by latest post; unread (members): topics with posts you have not read, by latest post.',
    }),
  ),
});
export const TopicReadBody = Type.Object({ post_id: Id }, { additionalProperties: false });
export const TopicReadOut = Type.Object({ topic_id: Type.String(), last_read_post_id: Type.String(), last_read_at: Time });
export const NewTopicBody = Type.Object({ forum_id: Id, title: Title, body: Body }, { additionalProperties: false });
export const TopicPatch = Type.Object(
  { title: Type.Optional(Title), pinned: Type.Optional(Type.Boolean()), locked: Type.Optional(Type.Boolean()), hidden: Type.Optional(Type.Boolean()) },
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
export const LikeOut = Type.Object({ like_count: Type.Integer({ minimum: 0 }), liked: Type.Boolean({ description: 'Whether you like the post now.' }) });
export type LikeOut = Static<typeof LikeOut>;

export const NotificationQuery = Type.Object({ ...PageQuery.properties, unread: Type.Optional(Type.Boolean({ description: 'Only unread ones; X-Pagination `total` is then the unread count.' })) });
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
  { ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 200, description: 'Which to mark read; all of yours without it.' })) },
  { additionalProperties: false },
);
export const NotificationsReadOut = Type.Object({ unread_count: Type.Integer({ minimum: 0 }) });

const FlagReason = Type.Union([Type.Literal('spam'), Type.Literal('inappropriate'), Type.Literal('off_topic'), Type.Literal('other')]);
const FlagState = Type.Union([Type.Literal('open'), Type.Literal('hidden'), Type.Literal('dismissed')]);
export const NewFlagBody = Type.Object(
  { reason: FlagReason, note: Type.Optional(Type.String({ maxLength: 1000, description: 'What the moderators should know.' })) },
  { additionalProperties: false },
);
export const FlagQuery = Type.Object({ ...PageQuery.properties, state: Type.Optional(FlagState) });
export const FlagPatch = Type.Object(
  { action: Type.Union([Type.Literal('hide'), Type.Literal('dismiss')], { description: 'hide: the post becomes a tombstone; dismiss: it stays. Either closes every open flag of the post.' }) },
  { additionalProperties: false },
);
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
export const ThreadedPostOut = Type.Object({ ...postFields, replies: Type.Array(Type.Ref('ForumThreadedPost')) }, { $id: 'ForumThreadedPost' });
export type ThreadedPostOut = PostOut & { replies: ThreadedPostOut[] };
/** The threaded answer alone, as the plain JSON Schema `reply.compileSerializationSchema` takes. */
export const ThreadedPostList: Record<string, unknown> = { ...Type.Array(Type.Ref('ForumThreadedPost')) };

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
  forum_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only topics of this forum.' })),
  author: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'Only what this member wrote (username, any case): matching posts, and titles of their topics.' })),
  after: Type.Optional(Type.String({ format: 'date', description: 'Only what was written on or after this day (UTC).' })),
  before: Type.Optional(Type.String({ format: 'date', description: 'Only what was written before this day (UTC).' })),
});
export const SearchHitOut = Type.Object({
  topic: TopicOut,
  post_id: Type.Union([Type.String(), Type.Null()], { description: 'The best-matching post, if a post matched.' }),
  excerpt: Type.String({ description: 'Plain text around the match.' }),
  excerpt_html: Type.String({ description: 'The excerpt as HTML: escaped text with the matched words in `<mark>`.' }),
  rank: Type.Number(),
});
export type SearchHitOut = Static<typeof SearchHitOut>;

// Members and tokens -------------------------------------------------------------------------------

export const MemberOut = Type.Object({
  id: Type.String(),
  username: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  banned: Type.Boolean(),
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
export const MemberPatch = Type.Object({ role: Type.Optional(RoleSchema), banned: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

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
  service_key: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'Name of the waitlist, chosen by the caller.' }),
});
export const WaitlistBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, { additionalProperties: false });
export const WaitlistJoinedOut = Type.Object({ service_key: Type.String(), email: Type.String() });
export const WaitlistEntryOut = Type.Object({ id: Type.String(), service_key: Type.String(), email: Type.String(), created_at: Time });
export type WaitlistEntryOut = Static<typeof WaitlistEntryOut>;
export const WaitlistQuery = Type.Object({ ...PageQuery.properties, service_key: Type.Optional(Type.String({ maxLength: 64 })) });
export const WaitlistExportQuery = Type.Object({ service_key: Type.Optional(Type.String({ maxLength: 64 })) });

// OpenAPI security requirements: readers may be anonymous when public read is on.
type Security = Array<Record<string, string[]>>;
export const readerSecurity: Security = [{ forumToken: [] }, {}];
export const memberSecurity: Security = [{ forumToken: [] }];

export const UploadForm = Type.Object(
  { file: Type.String({ format: 'binary', description: 'An image (PNG, JPEG, GIF, WebP) or a PDF, ZIP or plain-text file, at most 8 MiB; the bytes must be what the name and type say. SVG is refused.' }) },
  { required: ['file'] },
);
export const UploadParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const UploadOut = Type.Object({
  id: Type.String(),
  url: Type.String({ description: 'Path on the instance that serves the file (images inline, other files as downloads).' }),
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
