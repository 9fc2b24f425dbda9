// Flags: members report posts to the moderators' queue. A member flags a live post it can see once
// (one open flag per member and post) and never its own; a moderator hides the post (it becomes a
// tombstone, like a deletion) or dismisses the report, and either closes every open flag of it.
import { and, count, desc, eq } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { SiteRow } from '../core/sites/tables.js';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { applySanction, checkSanction, logModAction, moderatedMember } from './moderation.js';
import { authorizeModeration, requirePoster, type Viewer } from './policy.js';
import { forumFlags, forumMembers, forumPosts, type ForumFlagRow, type ForumMemberRow } from './tables.js';
import { findVisiblePost, postColumns, tombstonePost, type PostView } from './topics.js';
import { authorOf, type Author } from './avatars.js';

export interface FlagView {
  flag: ForumFlagRow;
  reporter: Author | null;
  resolvedBy: Author | null;
  post: PostView;
}

interface NewFlag {
  reason: ForumFlagRow['reason'];
  note?: string | undefined;
}

/** warn and suspend hide the post too, and act on its author. */
export type FlagAction = 'hide' | 'dismiss' | 'warn' | 'suspend';

interface FlagDecision {
  action: FlagAction;
  /** What the author reads (warn, suspend; required there). */
  reason?: string | undefined;
  /** The end of a suspension; none: indefinite. */
  until?: Date | null | undefined;
}

const reporters = alias(forumMembers, 'reporter');
const resolvers = alias(forumMembers, 'resolver');

function flagViews(db: Executor) {
  return db
    .select({
      ...postColumns,
      flag: forumFlags,
      reporterId: reporters.id,
      reporterName: reporters.username,
      reporterAvatar: reporters.avatarUploadId,
      resolverId: resolvers.id,
      resolverName: resolvers.username,
      resolverAvatar: resolvers.avatarUploadId,
    })
    .from(forumFlags)
    .innerJoin(forumPosts, eq(forumPosts.id, forumFlags.postId))
    .leftJoin(forumMembers, eq(forumMembers.id, forumPosts.authorId))
    .leftJoin(reporters, eq(reporters.id, forumFlags.reporterId))
    .leftJoin(resolvers, eq(resolvers.id, forumFlags.resolvedById));
}

type FlagJoin = Awaited<ReturnType<ReturnType<typeof flagViews>['where']>>[number];

function toView(row: FlagJoin): FlagView {
  return {
    flag: row.flag,
    reporter: authorOf(row.reporterId, row.reporterName, row.reporterAvatar),
    resolvedBy: authorOf(row.resolverId, row.resolverName, row.resolverAvatar),
    post: { post: row.post, author: authorOf(row.authorId, row.authorName, row.authorAvatar) },
  };
}

async function findFlag(db: Executor, siteId: string, id: string): Promise<FlagView> {
  const [row] = await flagViews(db).where(and(eq(forumFlags.siteId, siteId), eq(forumFlags.id, id)));
  if (!row) throw new AppError('flag_not_found', `No flag "${id}".`);
  return toView(row);
}

export async function flagPost(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  postId: string,
  input: NewFlag,
): Promise<FlagView> {
  requirePoster(viewer);
  const { post } = await findVisiblePost(db, siteId, viewer, postId);
  if (post.authorId === viewer.member.id)
    throw new AppError('own_post_flag', 'You cannot flag your own post; edit or delete it instead.');
  const note = input.note?.trim() || null;
  // The only unique key a new flag can meet is the open flag of this member on this post.
  const [created] = await db
    .insert(forumFlags)
    .values({ id: newId(), siteId, postId, reporterId: viewer.member.id, reason: input.reason, note })
    .onConflictDoNothing()
    .returning({ id: forumFlags.id });
  if (!created)
    throw new AppError('already_flagged', 'You have flagged this post already; a moderator will look at it.');
  return findFlag(db, siteId, created.id);
}

/** The moderators' queue: flags in `state` (open by default), newest first. */
export async function listFlags(
  db: Executor,
  siteId: string,
  viewer: Viewer,
  state: ForumFlagRow['state'],
  page: Page,
): Promise<{ rows: FlagView[]; total: number }> {
  authorizeModeration(viewer);
  const where = and(eq(forumFlags.siteId, siteId), eq(forumFlags.state, state));
  const [rows, [total]] = await Promise.all([
    flagViews(db)
      .where(where)
      .orderBy(desc(forumFlags.createdAt), desc(forumFlags.id))
      .limit(page.pageSize)
      .offset(page.offset),
    db.select({ n: count() }).from(forumFlags).where(where),
  ]);
  return { rows: rows.map(toView), total: total?.n ?? 0 };
}

/**
 * A moderator's decision on a flag's post: every open flag of the post closes with it. `warn` and
 * `suspend` hide the post and sanction its author; each decision is a row of the audit log.
 */
export async function resolveFlag(
  db: Executor,
  site: SiteRow,
  viewer: Viewer,
  id: string,
  decision: FlagDecision,
): Promise<FlagView> {
  authorizeModeration(viewer);
  const { action } = decision;
  const sanction = action === 'warn' || action === 'suspend' ? action : undefined;
  let author: ForumMemberRow | undefined;
  if (sanction) {
    const { post } = await findFlag(db, site.id, id);
    if (!post.author) throw new AppError('member_not_found', 'The author of this post is no longer a member.');
    checkSanction(sanction, { reason: decision.reason ?? '', until: decision.until });
    author = (await moderatedMember(db, site, viewer, post.author.id)).target;
  }
  await db.transaction(async (tx) => {
    const [flag] = await tx
      .select()
      .from(forumFlags)
      .where(and(eq(forumFlags.siteId, site.id), eq(forumFlags.id, id)))
      .for('update');
    if (!flag) throw new AppError('flag_not_found', `No flag "${id}".`);
    if (flag.state !== 'open')
      throw new AppError(
        'flag_resolved',
        `This flag was ${flag.state === 'hidden' ? 'resolved by hiding the post' : 'dismissed'} already.`,
      );
    const [post] = await tx
      .select({ id: forumPosts.id, topicId: forumPosts.topicId })
      .from(forumPosts)
      .where(eq(forumPosts.id, flag.postId));
    const hide = action !== 'dismiss';
    if (hide) await tombstonePost(tx, post!);
    await tx
      .update(forumFlags)
      .set({ state: hide ? 'hidden' : 'dismissed', resolvedById: viewer.member.id, resolvedAt: new Date() })
      .where(and(eq(forumFlags.postId, flag.postId), eq(forumFlags.state, 'open')));
    const [postAuthor] = await tx
      .select({ id: forumMembers.id, username: forumMembers.username })
      .from(forumMembers)
      .innerJoin(forumPosts, eq(forumPosts.authorId, forumMembers.id))
      .where(eq(forumPosts.id, flag.postId));
    await logModAction(tx, site.id, viewer, {
      action: hide ? 'hide' : 'dismiss',
      target: postAuthor,
      postId: flag.postId,
      flagId: flag.id,
      reason: flag.note ? `${flag.reason}: ${flag.note}` : flag.reason,
    });
    if (sanction && author)
      await applySanction(tx, site.id, viewer, author, sanction, {
        reason: decision.reason ?? '',
        until: decision.until,
        postId: flag.postId,
        flagId: flag.id,
      });
  });
  return findFlag(db, site.id, id);
}
