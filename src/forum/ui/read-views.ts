// Pages for reading: the forum index by category, Latest, a forum's topics, a topic in classic or
// threaded view, and search results. Each takes rows the services already filtered by the visibility
// policy; a member's unread topics and new posts are marked, and posts carry likes and a flag form.
import { isAdmin } from '../policy.js';
import { MAX_FLAG_NOTE_LENGTH } from '../schemas.js';
import type { SearchHit } from '../search.js';
import type { ForumWithStats } from '../structure.js';
import {
  FLAG_REASONS,
  topicDraftKey,
  type ForumCategoryRow,
  type ForumFlagRow,
  type ForumRow,
  type ForumTopicRow,
} from '../tables.js';
import type { PostNode, PostView, TopicView } from '../topics.js';
import type { TopicActivity } from '../topic-list.js';
import type { Author } from '../avatars.js';
import { composerForm, type Composer } from './composer-views.js';
import type { UiContext } from './context.js';
import { avatar } from './avatar-views.js';
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { compactCount, csrfField, notice, pager, postButton, relativeTime } from './layout.js';

interface TopicPermissions {
  reply: boolean;
  moderate: boolean;
  /** Whether the viewer may like and flag posts (of others: never its own, as the API says). */
  react: boolean;
  /** Whether the viewer may edit or delete a post by this author. */
  changePost: (authorId: string | null) => boolean;
}

export const FLAG_REASON_WORDS: Record<ForumFlagRow['reason'], string> = {
  spam: 'Spam',
  inappropriate: 'Inappropriate',
  off_topic: 'Off topic',
  other: 'Something else',
};

/** A forum's newest topics on the index, under its name: title, poster and when it was last active. */
function latestTopics(topics: TopicView[] | undefined): SafeHtml {
  if (!topics?.length) return html``;
  return html`<ul class="latest-topics">${topics.map(
    ({ topic, author }) =>
      html`<li>${author ? html`<span title="${author.username}">${avatar(author)}</span>` : ''}\
<a href="/t/${topic.id}">${topic.title}</a> <span class="muted">${relativeTime(topic.lastPostAt)}</span></li>`,
  )}</ul>`;
}

function forumRows(forums: ForumWithStats[], latest: Map<string, TopicView[]>): SafeHtml {
  return html`<table class="list">
<thead><tr><th scope="col">Forum</th><th scope="col" class="num">Topics</th><th scope="col" class="num">Posts</th>\
<th scope="col" class="num">Last post</th></tr></thead>
<tbody>${forums.map(
    ({ forum, stats }) => html`<tr>
<td><a class="title" href="/f/${forum.slug}">${forum.name}</a>${
      forum.visibility !== 'public'
        ? html`<span class="badge">${forum.visibility === 'staff' ? 'Staff only' : 'Members only'}</span>`
        : ''
    }${forum.locked ? html`<span class="badge">Locked</span>` : ''}
${forum.description ? html`<div class="muted">${forum.description}</div>` : ''}${latestTopics(latest.get(forum.id))}</td>
<td class="num">${stats.topicCount}</td><td class="num">${stats.postCount}</td><td class="num">${
      stats.lastPostAt ? relativeTime(stats.lastPostAt) : '—'
    }</td>
</tr>`,
  )}</tbody></table>`;
}

/** Categories (the index) and Latest: two views of the same forum, side by side. */
function listTabs(current: 'categories' | 'latest'): SafeHtml {
  const tab = (name: typeof current, href: string, label: string) =>
    html`<a href="${href}"${current === name ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Topic lists">\
${tab('categories', '/', 'Categories')}${tab('latest', '/latest', 'Latest')}</nav>`;
}

export function indexView(
  ui: UiContext,
  categories: ForumCategoryRow[],
  forums: ForumWithStats[],
  latest: Map<string, TopicView[]>,
): SafeHtml {
  const groups = categories
    .map((category) => ({ category, forums: forums.filter((f) => f.forum.categoryId === category.id) }))
    .filter((group) => group.forums.length > 0);
  const categoryIds = new Set(categories.map((c) => c.id));
  const loose = forums.filter((f) => f.forum.categoryId === null || !categoryIds.has(f.forum.categoryId));
  return html`<h1>${ui.title}</h1>${listTabs('categories')}
${
  forums.length === 0
    ? html`<p class="muted">There are no forums here yet${
        ui.viewer.kind === 'guest' ? html`, or none you can see without <a href="/login">logging in</a>` : ''
      }.</p>`
    : ''
}
${
  forums.length === 0 && isAdmin(ui.viewer) ? html`<p><a class="button" href="/admin">Set up the community</a></p>` : ''
}
${groups.map(
  (group) => html`<section aria-labelledby="cat-${group.category.slug}">\
<h2 id="cat-${group.category.slug}">${group.category.name}</h2>
${
  group.category.description ? html`<p class="muted">${group.category.description}</p>` : ''
}${forumRows(group.forums, latest)}</section>`,
)}
${
  loose.length > 0
    ? html`<section aria-labelledby="cat-other"><h2 id="cat-other">${
        groups.length > 0 ? 'Other forums' : 'Forums'
      }</h2>${forumRows(loose, latest)}</section>`
    : ''
}`;
}

function topicBadges(topic: ForumTopicRow): SafeHtml {
  return html`${topic.pinned ? html`<span class="badge pin">Pinned</span>` : ''}${
    topic.locked ? html`<span class="badge">Locked</span>` : ''
  }${topic.hidden ? html`<span class="badge">Hidden</span>` : ''}`;
}

/** What a topic list may add to its rows: each topic's forum as a badge (lists across forums), its activity. */
interface TopicListExtras {
  forums?: Map<string, Pick<ForumRow, 'name' | 'slug'>>;
  activity?: Map<string, TopicActivity>;
}

/** The opening poster, then the latest others, as overlapping avatars with their names for screen readers. */
function posterAvatars(author: Author | null, recent: Author[]): SafeHtml {
  const people = [...(author ? [author] : []), ...recent.filter((poster) => poster.id !== author?.id)].slice(0, 5);
  if (people.length === 0) return html``;
  return html`<span class="posters">${people.map(
    (person) => html`<span title="${person.username}">${avatar(person)}</span>`,
  )}<span class="sr-only">Posters: ${people.map((person) => person.username).join(', ')}</span></span>`;
}

/** "1.2k views": a count as the list's columns show it, with its noun. */
const counted = (count: number, one: string, many: string): SafeHtml =>
  html`${compactCount(count)} ${count === 1 ? one : many}`;

/**
 * Topics as a table; a member's topic with posts it has not read (`unread`) gets a "New" marker that
 * jumps to the first unread post. Lists across forums badge each topic with its forum; with its
 * activity a row shows its posters, views and likes. Phones drop the number columns, so the meta line
 * names the activity.
 */
export function topicRows(topics: TopicView[], extras: TopicListExtras = {}): SafeHtml {
  const { forums, activity } = extras;
  return html`<table class="list topics">
<thead><tr><th scope="col">Topic</th>${activity ? html`<th scope="col" class="posters-col">Posters</th>` : ''}\
<th scope="col" class="num">Replies</th>${
    activity ? html`<th scope="col" class="num">Views</th><th scope="col" class="num">Likes</th>` : ''
  }<th scope="col" class="num">Activity</th></tr></thead>
<tbody>${topics.map(({ topic, author, unread }) => {
    const replies = Math.max(topic.postCount - 1, 0);
    const active = relativeTime(topic.lastPostAt);
    const forum = forums?.get(topic.forumId);
    const facts = activity?.get(topic.id);
    const likes = facts?.likeCount ?? 0;
    return html`<tr${unread ? html` class="unread"` : ''}>
<td><a class="title" href="/t/${topic.id}">${topic.title}</a>${topicBadges(topic)}${
      unread
        ? html`<a class="badge new" href="/t/${topic.id}/unread">New\
<span class="sr-only">: jump to the first unread post of ${topic.title}</span></a>`
        : ''
    }<div class="meta">${forum ? html`<a class="category" href="/f/${forum.slug}">${forum.name}</a> · ` : ''}${
      author && !facts ? avatar(author) : ''
    }by ${author?.username ?? 'a former member'} · ${relativeTime(topic.createdAt)}<span class="on-phone"> · ${counted(
      replies,
      'reply',
      'replies',
    )}${
      facts ? html`, ${counted(facts.views, 'view', 'views')}, ${counted(likes, 'like', 'likes')}` : ''
    }, active ${active}</span></div></td>
${facts ? html`<td class="posters-col">${posterAvatars(author, facts.posters)}</td>` : ''}\
<td class="num">${compactCount(replies)}</td>${
      facts ? html`<td class="num">${compactCount(facts.views)}</td><td class="num">${compactCount(likes)}</td>` : ''
    }<td class="num">${active}</td>
</tr>`;
  })}</tbody></table>`;
}

/** Who may start a topic from Latest: one forum goes straight to its composer, more to a choice. */
export type NewTopicTarget = { forum: Pick<ForumRow, 'slug'> } | 'choose' | 'log-in' | undefined;

function newTopicButton(target: NewTopicTarget): SafeHtml {
  if (target === undefined) return html``;
  if (target === 'log-in') return html`<a href="/login?next=%2Fnew">Log in to start a topic</a>`;
  const href = target === 'choose' ? '/new' : `/f/${target.forum.slug}/new`;
  return html`<a class="button" href="${href}">New topic</a>`;
}

export function latestView(
  ui: UiContext,
  topics: TopicView[],
  page: number,
  totalPages: number,
  extras: TopicListExtras & { newTopic?: NewTopicTarget } = {},
): SafeHtml {
  // Marking all read drops every "New" marker until the next post (decision 0064).
  const markAll = topics.some((row) => row.unread)
    ? postButton(ui, '/latest/read', 'Mark all read', {}, 'secondary')
    : '';
  return html`<div class="toolbar"><h1>Latest</h1><div class="toolbar-actions">${markAll}${newTopicButton(
    extras.newTopic,
  )}</div></div>${listTabs('latest')}
${
  topics.length === 0
    ? html`<p class="muted">No topics yet${
        ui.viewer.kind === 'guest'
          ? html`, or none you can see without <a href="/login?next=%2Flatest">logging in</a>`
          : ''
      }.</p>`
    : topicRows(topics, extras)
}
${pager(page, totalPages, (n) => `/latest?page=${n}`)}`;
}

/** The choice behind Latest's "New topic": the forums the member may start a topic in. */
export function newTopicChoiceView(forums: Pick<ForumRow, 'name' | 'slug' | 'description'>[]): SafeHtml {
  return html`<p class="crumbs"><a href="/latest">Latest</a></p><h1>New topic</h1>
${
  forums.length === 0
    ? html`<p class="muted">There is no forum you may start a topic in.</p>`
    : html`<p>Which forum is it for?</p><ul class="cards">${forums.map(
        (forum) =>
          html`<li class="card"><a class="title" href="/f/${forum.slug}/new">${forum.name}</a>${
            forum.description ? html`<div class="muted">${forum.description}</div>` : ''
          }</li>`,
      )}</ul>`
}`;
}

export function forumView(
  ui: UiContext,
  forum: ForumRow,
  topics: TopicView[],
  page: number,
  totalPages: number,
  canStart: boolean,
  activity?: Map<string, TopicActivity>,
): SafeHtml {
  return html`<p class="crumbs"><a href="/">${ui.title}</a></p>
<div class="toolbar"><h1>${forum.name}</h1>${
    canStart
      ? html`<a class="button" href="/f/${forum.slug}/new">New topic</a>`
      : ui.viewer.kind === 'guest'
        ? html`<a href="/login?next=${encodeURIComponent(`/f/${forum.slug}`)}">Log in to start a topic</a>`
        : ''
  }</div>
${forum.description ? html`<p class="muted">${forum.description}</p>` : ''}
${forum.locked ? notice('warn', 'This forum is locked: only moderators start topics here.') : ''}
${topics.length === 0 ? html`<p class="muted">No topics yet.</p>` : topicRows(topics, { activity })}
${pager(page, totalPages, (n) => `/f/${forum.slug}?page=${n}`)}
<p class="muted"><a href="/f/${forum.slug}/feed.atom">Atom feed of this forum</a></p>`;
}

/** Threads show replies this many levels deep; deeper ones continue on a page of their own. */
export const THREAD_DEPTH_PER_PAGE = 4;

function replyComposer(ui: UiContext, data: TopicPage, parentId: string | undefined): SafeHtml {
  const hidden = { view: data.view, ...(parentId ? { parent_id: parentId } : {}) };
  // The draft fills the topic's own reply box; a reply to one post starts empty.
  const state = parentId ? { values: { body: '' } } : (data.draft ?? { values: { body: '' } });
  return composerForm(ui, {
    ...state,
    action: `/t/${data.topic.id}/reply`,
    id: parentId ? `reply-${parentId}` : 'reply-body',
    label: parentId ? 'Your reply' : 'Reply to this topic',
    submit: 'Post reply',
    draftKey: topicDraftKey(data.topic.id),
    hidden,
  });
}

interface TopicPage {
  topic: ForumTopicRow;
  forum: ForumRow;
  view: 'classic' | 'threaded';
  posts: PostView[] | PostNode[];
  page: number;
  totalPages: number;
  /** Posts of the page the viewer likes. */
  liked: ReadonlySet<string>;
  /** Where the member's read mark stood before this page: later posts are new to it. */
  readUpTo: Date | undefined;
  /** The viewer just flagged a post of this topic. */
  flagged: boolean;
  /** The member's saved reply to this topic, for the reply box. */
  draft?: Pick<Composer, 'values' | 'drafted'> | undefined;
  /** Classic view: who wrote the posts that replies on this page answer (deleted ones are absent). */
  answered?: ReadonlyMap<string, Author | null>;
  /** Threaded view of one thread continued from this post, rather than a page of threads. */
  from?: string | undefined;
}

/** The like count, the like or unlike button and the flag form of a post; each form comes back here. */
function postReactions(ui: UiContext, data: TopicPage, post: PostView['post'], can: TopicPermissions): SafeHtml {
  const here = `/t/${data.topic.id}?view=${data.view}&page=${data.page}`;
  const count = post.likeCount;
  const likes =
    count > 0 ? html`<span class="likes" id="likes-${post.id}">${count} ${count === 1 ? 'like' : 'likes'}</span>` : '';
  const mine = ui.viewer.kind === 'member' && ui.viewer.member.id === post.authorId;
  if (!can.react || mine) return html`${likes}`;
  const liked = data.liked.has(post.id);
  return html`<form method="post" action="/p/${post.id}/like" class="like">\
${csrfField(ui)}<input type="hidden" name="liked" value="${
    liked ? 'false' : 'true'
  }"><input type="hidden" name="back" value="${here}"><button type="submit" class="secondary small" aria-pressed="${
    liked ? 'true' : 'false'
  }"${count > 0 ? html` aria-describedby="likes-${post.id}"` : ''}>Like</button></form>${likes}
<details class="flag"><summary>Flag</summary>\
<form class="stack" method="post" action="/p/${post.id}/flag">\
${csrfField(ui)}<input type="hidden" name="back" value="${here}">
<fieldset><legend>Why should a moderator look at this post?</legend>${FLAG_REASONS.map(
    (reason) =>
      html`<label class="check">\
<input type="radio" name="reason" value="${reason}" required> ${FLAG_REASON_WORDS[reason]}</label>`,
  )}</fieldset>
<div><label for="flag-note-${post.id}">Note for the moderators <span class="hint">(optional)</span></label>\
<textarea id="flag-note-${post.id}" name="note" maxlength="${MAX_FLAG_NOTE_LENGTH}" rows="2"></textarea></div>
<div><button type="submit" class="danger">Send flag</button></div></form></details>`;
}

/** Classic view: "in reply to @name" on a reply to a post, linking to that post (here, or its page). */
function answeredLink(data: TopicPage, post: PostView['post']): SafeHtml {
  if (post.parentId === null || !data.answered) return html``;
  const onPage = (data.posts as PostView[]).some((shown) => shown.post.id === post.parentId);
  const href = onPage ? `#p-${post.parentId}` : `/p/${post.parentId}`;
  if (!data.answered.has(post.parentId)) return html`<span class="meta in-reply">in reply to a deleted post</span>`;
  const author = data.answered.get(post.parentId);
  return html`<a class="meta in-reply" href="${href}">in reply to ${
    author ? `@${author.username}` : 'a former member'
  }</a>`;
}

function postArticle(ui: UiContext, data: TopicPage, view: PostView, can: TopicPermissions): SafeHtml {
  const { post, author } = view;
  const threaded = data.view === 'threaded';
  if (post.deletedAt)
    return html`<article class="post deleted" id="p-${post.id}"><p>This post was deleted.</p></article>`;
  const authorLink = author
    ? html`<a class="author" href="/u/${encodeURIComponent(author.username)}">${author.username}</a>`
    : html`<span class="author">a former member</span>`;
  const mayChange = can.changePost(post.authorId);
  const mine = ui.viewer.kind === 'member' && ui.viewer.member.id === post.authorId;
  // One's own posts are never news to oneself.
  const isNew = data.readUpTo !== undefined && post.createdAt > data.readUpTo && !mine;
  return html`<article class="post${isNew ? ' new' : ''}" id="p-${post.id}" aria-label="Post by ${
    author?.username ?? 'a former member'
  }"${author ? html` data-author="${author.username}"` : ''}>
<header>${
    author ? avatar(author) : ''
  }${authorLink}<a class="meta" href="#p-${post.id}">${relativeTime(post.createdAt)}</a>${
    post.editedAt ? html`<span class="meta">edited</span>` : ''
  }${isNew ? html`<span class="badge new">New</span>` : ''}${threaded ? '' : answeredLink(data, post)}</header>
<div class="body">${trustedHtml(post.bodyHtml)}</div>
<div class="actions">${postReactions(ui, data, post, can)}${
    can.reply
      ? threaded
        ? html`<details class="reply"><summary>Reply</summary>${replyComposer(ui, data, post.id)}</details>`
        : html`<a href="/t/${data.topic.id}/reply?to=${post.id}" aria-label="Reply to ${
            author?.username ?? 'a former member'
          }">Reply</a>`
      : ''
  }${
    mayChange ? html`<a href="/p/${post.id}/edit">Edit</a>${postButton(ui, `/p/${post.id}/delete`, 'Delete')}` : ''
  }</div>
</article>`;
}

function descendants(node: PostNode): number {
  return node.replies.reduce((sum, reply) => sum + 1 + descendants(reply), 0);
}

/** Posts nested to THREAD_DEPTH_PER_PAGE levels; below that, a link continues the thread on its own page. */
function threadNodes(ui: UiContext, data: TopicPage, nodes: PostNode[], can: TopicPermissions, level = 0): SafeHtml {
  return html`${nodes.map((node) => {
    const more = descendants(node);
    const replies =
      node.replies.length === 0
        ? ''
        : level + 1 < THREAD_DEPTH_PER_PAGE
          ? html`<ol class="replies">${threadNodes(ui, data, node.replies, can, level + 1)}</ol>`
          : html`<p class="continue">\
<a href="/t/${data.topic.id}?view=threaded&amp;from=${node.post.id}">Continue this thread\
<span class="muted"> (${more} more ${more === 1 ? 'reply' : 'replies'})</span> →</a></p>`;
    return html`<li>${postArticle(ui, data, node, can)}${replies}</li>`;
  })}`;
}

function moderationBar(ui: UiContext, topic: ForumTopicRow): SafeHtml {
  const toggle = (field: 'pinned' | 'locked' | 'hidden', on: string, off: string) =>
    postButton(
      ui,
      `/t/${topic.id}/moderate`,
      topic[field] ? off : on,
      { action: topic[field] ? `un${on.toLowerCase()}` : on.toLowerCase() },
      'secondary',
    );
  return html`<div class="actions" role="group" aria-label="Moderation">\
${toggle('pinned', 'Pin', 'Unpin')}${toggle('locked', 'Lock', 'Unlock')}${toggle('hidden', 'Hide', 'Unhide')}</div>`;
}

export function topicView(ui: UiContext, data: TopicPage, can: TopicPermissions): SafeHtml {
  const { topic, forum, view } = data;
  const threaded = view === 'threaded';
  const tab = (name: 'classic' | 'threaded', label: string) =>
    html`<a href="/t/${topic.id}?view=${name}"${view === name ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<p class="crumbs"><a href="/">${ui.title}</a> › <a href="/f/${forum.slug}">${forum.name}</a></p>
<h1>${topic.title}${topicBadges(topic)}</h1>
${can.moderate ? moderationBar(ui, topic) : ''}
<nav class="tabs" aria-label="View">${tab('classic', 'Classic')}${tab('threaded', 'Threaded')}</nav>
${data.flagged ? notice('ok', 'Thank you: the moderators will look at the post you flagged.') : ''}
${topic.locked ? notice('warn', 'This topic is locked: it takes no more replies.') : ''}
${data.from ? html`<p class="continue"><a href="/t/${topic.id}?view=threaded">← The whole topic</a></p>` : ''}
${
  threaded
    ? html`<ol class="thread">${threadNodes(ui, data, data.posts as PostNode[], can)}</ol>`
    : html`${(data.posts as PostView[]).map((post) => postArticle(ui, data, post, can))}`
}
${data.from ? '' : pager(data.page, data.totalPages, (n) => `/t/${topic.id}?view=${view}&page=${n}`)}
${
  can.reply
    ? html`<section aria-labelledby="reply-heading">\
<h2 id="reply-heading">Reply</h2>${replyComposer(ui, data, undefined)}</section>`
    : ui.viewer.kind === 'guest'
      ? html`<p><a href="/login?next=${encodeURIComponent(`/t/${topic.id}`)}">Log in to reply</a></p>`
      : ''
}`;
}

/** A search's filters as the form holds them ('' for unset). */
export interface SearchNarrowing {
  forum: string;
  category: string;
  author: string;
  after: string;
  before: string;
}

interface SearchForm {
  query: string;
  narrow: SearchNarrowing;
  forums: Array<{ slug: string; name: string }>;
  categories: Array<{ slug: string; name: string }>;
}

export function searchView(form: SearchForm, hits: SearchHit[], page: number, totalPages: number): SafeHtml {
  const { query, narrow } = form;
  const narrowed = Object.values(narrow).some((value) => value !== '');
  const params = new URLSearchParams({
    q: query,
    ...Object.fromEntries(Object.entries(narrow).filter(([, value]) => value !== '')),
  });
  return html`<h1>Search</h1>
<form class="stack" role="search" method="get" action="/search"><div><label for="q">Search topics and posts</label>\
<input type="search" id="q" name="q" value="${query}" maxlength="200"></div>
<details class="filters"${narrowed ? html` open` : ''}><summary>Filters</summary><div class="stack">
<div><label for="forum">In forum</label><select id="forum" name="forum">\
<option value="">All forums</option>${form.forums.map(
    (forum) =>
      html`<option value="${forum.slug}"${forum.slug === narrow.forum ? html` selected` : ''}>${forum.name}</option>`,
  )}</select></div>
${
  form.categories.length > 0
    ? html`<div><label for="category">In category</label><select id="category" name="category">\
<option value="">All categories</option>${form.categories.map(
        (category) =>
          html`<option value="${category.slug}"${
            category.slug === narrow.category ? html` selected` : ''
          }>${category.name}</option>`,
      )}</select></div>`
    : ''
}
<div><label for="author">Written by</label>\
<input type="text" id="author" name="author" value="${narrow.author}" maxlength="40" autocomplete="off"></div>
<div><label for="after">On or after</label><input type="date" id="after" name="after" value="${narrow.after}"></div>
<div><label for="before">Before</label><input type="date" id="before" name="before" value="${narrow.before}"></div>
</div></details>
<div><button type="submit">Search</button></div></form>
${
  query
    ? hits.length === 0
      ? html`<p class="muted">Nothing found for “${query}”${narrowed ? ' with these filters' : ''}.</p>`
      : html`<ol class="thread">${hits.map(
          (hit) =>
            html`<li class="post"><a class="title" href="${
              hit.postId ? `/t/${hit.topic.id}?view=threaded#p-${hit.postId}` : `/t/${hit.topic.id}`
            }">${trustedHtml(hit.titleHtml)}</a><div class="meta">by ${
              hit.author?.username ?? 'a former member'
            } · ${relativeTime(hit.topic.lastPostAt)}</div>${
              hit.excerptHtml ? html`<p class="excerpt">${trustedHtml(hit.excerptHtml)}</p>` : ''
            }</li>`,
        )}</ol>${pager(page, totalPages, (n) => `/search?${params.toString()}&page=${n}`)}`
    : ''
}`;
}

export function errorView(status: number, title: string, detail: string, loginHref: string | undefined): SafeHtml {
  return html`<h1>${title}</h1>${notice(status >= 500 ? 'error' : 'warn', detail)}${
    loginHref ? html`<p><a href="${loginHref}">Log in</a></p>` : ''
  }<p><a href="/">Back to the forum index</a></p>`;
}
