// The forum's categories, forums, topics and posts as Content API entries. Reads go through the
// forum's visibility policy: `status=published` (the default) sees what a guest sees; `status=any`
// (cms-write) sees what the site owner, an admin of the forum, sees. Writes go through the forum's
// own services as the site owner's member, so counters, list versions and rules stay the forum's.
// Forum content has no drafts: every entry is `published`, and `status=draft` lists nothing
// (docs/decisions/0044-cms-forum-views.md).
import { eq } from 'drizzle-orm';
import { users } from '../core/accounts/tables.js';
import { AppError } from '../http/errors.js';
import { ensureOwnerMember, viewerFor } from '../forum/members.js';
import { GUEST, type Viewer } from '../forum/policy.js';
import { searchForum } from '../forum/search.js';
import {
  createCategory,
  createForum,
  deleteCategory,
  deleteForum,
  findCategory,
  findVisibleForum,
  listCategories,
  listVisibleForums,
  updateCategory,
  updateForum,
  withStats,
  type ForumWithStats,
} from '../forum/structure.js';
import { listTopics } from '../forum/topic-list.js';
import {
  createPost,
  createTopic,
  deletePost,
  editPost,
  findVisiblePost,
  findVisibleTopic,
  listPostsClassic,
  updateTopic,
  type PostView,
  type TopicView,
} from '../forum/topics.js';
import { checkValue } from './fields.js';
import { FORUM_TYPES, type ForumTypeDefinition } from './forum-types.js';
import { authorizeStatusView } from './policy.js';
import type { EntryOut } from './schemas.js';
import type { EntryInput } from './entries.js';
import type { EntrySource, ReadQuery, SourceContext } from './sources.js';

type Data = Record<string, unknown>;
type ForumCategoryRow = Awaited<ReturnType<typeof findCategory>>;

function entry(
  type: string,
  id: string,
  slug: string | null,
  data: Data,
  created: Date,
  updated: Date,
  html?: Record<string, string>,
): EntryOut {
  return {
    id,
    type,
    slug,
    status: 'published',
    data,
    ...(html ? { html } : {}),
    created_at: created.toISOString(),
    updated_at: updated.toISOString(),
    published_at: created.toISOString(),
  };
}

const presentCategoryEntry = (row: ForumCategoryRow): EntryOut =>
  entry(
    'categories',
    row.id,
    row.slug,
    { name: row.name, description: row.description, position: row.position },
    row.createdAt,
    row.createdAt,
  );

const presentForumEntry = ({ forum, stats }: ForumWithStats): EntryOut =>
  entry(
    'forums',
    forum.id,
    forum.slug,
    {
      name: forum.name,
      description: forum.description,
      category_id: forum.categoryId,
      visibility: forum.visibility,
      locked: forum.locked,
      topic_count: stats.topicCount,
      post_count: stats.postCount,
    },
    forum.createdAt,
    stats.lastPostAt ?? forum.createdAt,
  );

const presentTopicEntry = ({ topic, author }: TopicView): EntryOut =>
  entry(
    'topics',
    topic.id,
    topic.slug,
    {
      forum_id: topic.forumId,
      title: topic.title,
      author: author?.username ?? null,
      pinned: topic.pinned,
      locked: topic.locked,
      post_count: topic.postCount,
      last_post_at: topic.lastPostAt.toISOString(),
    },
    topic.createdAt,
    topic.lastPostAt,
  );

const presentPostEntry = ({ post, author }: PostView): EntryOut =>
  entry(
    'posts',
    post.id,
    null,
    { topic_id: post.topicId, parent_id: post.parentId, body: post.bodySource, author: author?.username ?? null },
    post.createdAt,
    post.editedAt ?? post.createdAt,
    {
      body: post.bodyHtml,
    },
  );

/** The site owner as an admin of its forum: the author of CMS writes and the eye of `status=any`. */
async function ownerViewer(ctx: SourceContext): Promise<Viewer> {
  const [owner] = ctx.site.ownerId ? await ctx.db.select().from(users).where(eq(users.id, ctx.site.ownerId)) : [];
  if (!owner) throw new AppError('forbidden', 'This site has no owner account to act for in its forum.');
  return viewerFor(ctx.site, await ensureOwnerMember(ctx.db, ctx.site, owner));
}

/** The viewer a read acts as, or undefined for `status=draft` (the forum has no drafts). */
async function readViewer(ctx: SourceContext, status: ReadQuery['status']): Promise<Viewer | undefined> {
  const view = authorizeStatusView(ctx.caller, status);
  if (view === 'draft') return undefined;
  if (ctx.caller.member) return ctx.caller.member;
  return view === 'any' ? ownerViewer(ctx) : GUEST;
}

function invalidFilter(detail: string): AppError {
  return new AppError('invalid_filter', detail);
}

/** The only query parameters forum views take beyond paging and status: one filter per type, `q` on topics. */
function forumFilter(query: Data, allowed: string | undefined): string | undefined {
  let value: string | undefined;
  for (const [key, raw] of Object.entries(query)) {
    if (!key.startsWith('filter')) continue;
    if (!allowed || (key !== `filter[${allowed}]` && key !== `filter[${allowed}][eq]`)) {
      throw invalidFilter(
        allowed ? `This forum view filters only by ${allowed} (eq).` : 'This forum view takes no filters.',
      );
    }
    if (typeof raw !== 'string') throw invalidFilter(`${key} is given more than once.`);
    value = raw;
  }
  if (query.sort !== undefined || query.include !== undefined)
    throw invalidFilter("Forum views keep the forum's own order and take no sort or include.");
  return value;
}

function selectFields(out: EntryOut, fields: string | undefined, type: ForumTypeDefinition): EntryOut {
  if (fields === undefined) return out;
  const names = fields
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  for (const name of names)
    if (!type.fields.some((f) => f.name === name)) throw invalidFilter(`fields: unknown field "${name}".`);
  const data: Data = {};
  for (const name of names) if (name in out.data) data[name] = (out.data as Data)[name];
  return { ...out, data };
}

/** Checks a write's data against the view's fields: unknown fields and wrong values are 422. */
function checkForumData(type: ForumTypeDefinition, data: Data, writable: readonly string[], partial: boolean): Data {
  const errors: Array<{ field: string; code: string; message: string }> = [];
  for (const name of Object.keys(data)) {
    if (!writable.includes(name))
      errors.push({
        field: name,
        code: 'unknown_field',
        message: `is not a field ${type.slug} take on write (${writable.join(', ')})`,
      });
  }
  for (const field of type.fields.filter((f) => writable.includes(f.name))) {
    const value = data[field.name];
    if (value === undefined || value === null) {
      if (field.required && !partial)
        errors.push({ field: field.name, code: 'invalid_field_value', message: 'is required' });
      continue;
    }
    const checked = checkValue(field, value);
    if (!checked.ok) errors.push({ field: field.name, code: 'invalid_field_value', message: checked.message });
  }
  if (errors.length > 0) {
    throw new AppError(
      errors.some((e) => e.code === 'unknown_field') ? 'unknown_field' : 'invalid_field_value',
      errors.map((e) => `${e.field} ${e.message}`).join('; '),
      { errors },
    );
  }
  return data;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

function requireSlug(input: EntryInput, type: string): string {
  if (!input.slug)
    throw new AppError('invalid_field_value', `${type} need a slug.`, {
      errors: [{ field: 'slug', code: 'invalid_field_value', message: 'is required' }],
    });
  return input.slug;
}

const TYPE = (slug: string): ForumTypeDefinition => FORUM_TYPES.find((t) => t.slug === slug)!;

const categoriesSource: EntrySource = {
  async list(ctx, query, page) {
    forumFilter(query, undefined);
    const viewer = await readViewer(ctx, query.status);
    const rows = viewer ? await listCategories(ctx.db, ctx.site.id, viewer) : [];
    return {
      rows: rows
        .slice(page.offset, page.offset + page.pageSize)
        .map((row) => selectFields(presentCategoryEntry(row), query.fields, TYPE('categories'))),
      total: rows.length,
    };
  },
  async read(ctx, idOrSlug, query) {
    const viewer = await readViewer(ctx, query.status);
    const visible = viewer ? await listCategories(ctx.db, ctx.site.id, viewer) : [];
    const row = visible.find((c) => c.id === idOrSlug) ?? visible.find((c) => c.slug === idOrSlug);
    if (!row) throw new AppError('entry_not_found', `No categories entry "${idOrSlug}".`);
    return { entry: selectFields(presentCategoryEntry(row), query.fields, TYPE('categories')) };
  },
  async create(ctx, input) {
    const data = checkForumData(TYPE('categories'), input.data, ['name', 'description', 'position'], false);
    const row = await createCategory(ctx.db, ctx.site.id, {
      name: str(data.name)!,
      slug: requireSlug(input, 'categories'),
      description: str(data.description),
      position: num(data.position),
    });
    return { entry: presentCategoryEntry(row) };
  },
  async update(ctx, id, input) {
    const data = checkForumData(TYPE('categories'), input.data, ['name', 'description', 'position'], true);
    const row = await updateCategory(ctx.db, ctx.site.id, (await findCategory(ctx.db, ctx.site.id, id)).id, {
      ...(str(data.name) !== undefined ? { name: str(data.name) } : {}),
      ...(input.slug ? { slug: input.slug } : {}),
      ...(str(data.description) !== undefined ? { description: str(data.description) } : {}),
      ...(num(data.position) !== undefined ? { position: num(data.position) } : {}),
    });
    return { entry: presentCategoryEntry(row) };
  },
  async remove(ctx, idOrSlug) {
    await deleteCategory(ctx.db, ctx.site.id, idOrSlug);
  },
};

const FORUM_WRITABLE = ['name', 'description', 'category_id', 'visibility', 'locked'];

const forumsSource: EntrySource = {
  async list(ctx, query, page) {
    const category = forumFilter(query, 'category_id');
    const viewer = await readViewer(ctx, query.status);
    const rows = viewer ? await listVisibleForums(ctx.db, ctx.site.id, viewer, category) : [];
    return {
      rows: rows
        .slice(page.offset, page.offset + page.pageSize)
        .map((row) => selectFields(presentForumEntry(row), query.fields, TYPE('forums'))),
      total: rows.length,
    };
  },
  async read(ctx, idOrSlug, query) {
    const viewer = await readViewer(ctx, query.status);
    if (!viewer) throw new AppError('entry_not_found', `No forums entry "${idOrSlug}".`);
    const forum = await findVisibleForum(ctx.db, ctx.site.id, viewer, idOrSlug);
    const [withCounts] = await withStats(ctx.db, viewer, [forum]);
    return { entry: selectFields(presentForumEntry(withCounts!), query.fields, TYPE('forums')) };
  },
  async create(ctx, input) {
    const data = checkForumData(TYPE('forums'), input.data, FORUM_WRITABLE, false);
    const row = await createForum(ctx.db, ctx.site.id, {
      name: str(data.name)!,
      slug: requireSlug(input, 'forums'),
      category_id: str(data.category_id),
      description: str(data.description),
      visibility: str(data.visibility) as 'public' | 'members' | 'staff' | undefined,
      locked: bool(data.locked),
    });
    const [out] = await withStats(ctx.db, await ownerViewer(ctx), [row]);
    return { entry: presentForumEntry(out!) };
  },
  async update(ctx, id, input) {
    const data = checkForumData(TYPE('forums'), input.data, FORUM_WRITABLE, true);
    const row = await updateForum(ctx.db, ctx.site.id, id, {
      ...(str(data.name) !== undefined ? { name: str(data.name) } : {}),
      ...(input.slug ? { slug: input.slug } : {}),
      ...('category_id' in data ? { category_id: str(data.category_id) ?? null } : {}),
      ...(str(data.description) !== undefined ? { description: str(data.description) } : {}),
      ...(str(data.visibility) !== undefined
        ? { visibility: str(data.visibility) as 'public' | 'members' | 'staff' }
        : {}),
      ...(bool(data.locked) !== undefined ? { locked: bool(data.locked) } : {}),
    });
    const [out] = await withStats(ctx.db, await ownerViewer(ctx), [row]);
    return { entry: presentForumEntry(out!) };
  },
  async remove(ctx, idOrSlug) {
    await deleteForum(ctx.db, ctx.site.id, idOrSlug);
  },
};

const topicsSource: EntrySource = {
  async list(ctx, query, page) {
    const forumId = forumFilter(query, 'forum_id');
    const viewer = await readViewer(ctx, query.status);
    if (!viewer) return { rows: [], total: 0 };
    const forum = forumId !== undefined ? (await findVisibleForum(ctx.db, ctx.site.id, viewer, forumId)).id : undefined;
    const { rows, total } = query.q
      ? await searchForum(ctx.db, ctx.site.id, viewer, query.q, page)
      : await listTopics(ctx.db, ctx.site.id, viewer, { forumId: forum }, page);
    return { rows: rows.map((row) => selectFields(presentTopicEntry(row), query.fields, TYPE('topics'))), total };
  },
  async read(ctx, id, query) {
    const viewer = await readViewer(ctx, query.status);
    if (!viewer) throw new AppError('entry_not_found', `No topics entry "${id}".`);
    return {
      entry: selectFields(
        presentTopicEntry(await findVisibleTopic(ctx.db, ctx.site.id, viewer, id)),
        query.fields,
        TYPE('topics'),
      ),
    };
  },
  async create(ctx, input) {
    const data = checkForumData(TYPE('topics'), input.data, ['forum_id', 'title', 'body'], false);
    if (typeof data.body !== 'string')
      throw new AppError('invalid_field_value', 'body is required: the opening post.', {
        errors: [{ field: 'body', code: 'invalid_field_value', message: 'is required' }],
      });
    const { topic } = await createTopic(ctx.db, ctx.site, await ownerViewer(ctx), {
      forumId: str(data.forum_id)!,
      title: str(data.title)!,
      body: data.body,
    });
    return { entry: presentTopicEntry(topic) };
  },
  async update(ctx, id, input) {
    const data = checkForumData(TYPE('topics'), input.data, ['title', 'pinned', 'locked'], true);
    const topic = await updateTopic(ctx.db, ctx.site.id, await ownerViewer(ctx), id, {
      title: str(data.title),
      pinned: bool(data.pinned),
      locked: bool(data.locked),
    });
    return { entry: presentTopicEntry(topic) };
  },
  async remove() {
    throw new AppError('forbidden', 'Topics are not deleted through the Content API; hide them in the forum.');
  },
};

const postsSource: EntrySource = {
  async list(ctx, query, page) {
    const topicId = forumFilter(query, 'topic_id');
    if (topicId === undefined) throw invalidFilter('Posts are listed per topic: filter[topic_id]=<topic id>.');
    const viewer = await readViewer(ctx, query.status);
    if (!viewer) return { rows: [], total: 0 };
    const visible = await findVisibleTopic(ctx.db, ctx.site.id, viewer, topicId);
    const { rows, total } = await listPostsClassic(ctx.db, ctx.topicPages, visible, page);
    return {
      rows: rows
        .filter((row) => !row.post.deletedAt)
        .map((row) => selectFields(presentPostEntry(row), query.fields, TYPE('posts'))),
      total,
    };
  },
  async read(ctx, id, query) {
    const viewer = await readViewer(ctx, query.status);
    if (!viewer) throw new AppError('entry_not_found', `No posts entry "${id}".`);
    return {
      entry: selectFields(
        presentPostEntry(await findVisiblePost(ctx.db, ctx.site.id, viewer, id)),
        query.fields,
        TYPE('posts'),
      ),
    };
  },
  async create(ctx, input) {
    const data = checkForumData(TYPE('posts'), input.data, ['topic_id', 'parent_id', 'body'], false);
    const post = await createPost(ctx.db, ctx.site, await ownerViewer(ctx), str(data.topic_id)!, {
      body: str(data.body)!,
      parentId: str(data.parent_id),
    });
    return { entry: presentPostEntry(post) };
  },
  async update(ctx, id, input) {
    const data = checkForumData(TYPE('posts'), input.data, ['body'], false);
    return {
      entry: presentPostEntry(await editPost(ctx.db, ctx.site.id, await ownerViewer(ctx), id, str(data.body)!)),
    };
  },
  async remove(ctx, id) {
    await deletePost(ctx.db, ctx.site.id, await ownerViewer(ctx), id);
  },
};

const SOURCES: Record<string, EntrySource> = {
  categories: categoriesSource,
  forums: forumsSource,
  topics: topicsSource,
  posts: postsSource,
};

export function forumSource(slug: string): EntrySource {
  return SOURCES[slug]!;
}
