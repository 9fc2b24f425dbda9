// Pages for reading: the forum index by category, a forum's topics, a topic in classic or threaded
// view, and search results. Each takes rows the services already filtered by the visibility policy.
import { isAdmin } from '../policy.js';
import { MAX_BODY_LENGTH } from '../schemas.js';
import type { SearchHit } from '../search.js';
import type { ForumWithStats } from '../structure.js';
import type { ForumCategoryRow, ForumRow, ForumTopicRow } from '../tables.js';
import type { PostNode, PostView, TopicView } from '../topics.js';
import type { UiContext } from './context.js';
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { csrfField, notice, pager, postButton, time } from './layout.js';

export interface TopicPermissions {
  reply: boolean;
  moderate: boolean;
  /** Whether the viewer may edit or delete a post by this author. */
  changePost: (authorId: string | null) => boolean;
}

function forumRows(forums: ForumWithStats[]): SafeHtml {
  return html`<table class="list">
<thead><tr><th scope="col">Forum</th><th scope="col" class="num">Topics</th><th scope="col" class="num">Posts</th><th scope="col" class="num">Last post</th></tr></thead>
<tbody>${forums.map(
    ({ forum, stats }) => html`<tr>
<td><a class="title" href="/f/${forum.slug}">${forum.name}</a>${forum.visibility !== 'public' ? html`<span class="badge">${forum.visibility === 'staff' ? 'Staff only' : 'Members only'}</span>` : ''}${forum.locked ? html`<span class="badge">Locked</span>` : ''}
${forum.description ? html`<div class="muted">${forum.description}</div>` : ''}</td>
<td class="num">${stats.topicCount}</td><td class="num">${stats.postCount}</td><td class="num">${stats.lastPostAt ? time(stats.lastPostAt) : '—'}</td>
</tr>`,
  )}</tbody></table>`;
}

export function indexView(ui: UiContext, categories: ForumCategoryRow[], forums: ForumWithStats[]): SafeHtml {
  const groups = categories
    .map((category) => ({ category, forums: forums.filter((f) => f.forum.categoryId === category.id) }))
    .filter((group) => group.forums.length > 0);
  const known = new Set(categories.map((c) => c.id));
  const loose = forums.filter((f) => f.forum.categoryId === null || !known.has(f.forum.categoryId));
  return html`<h1>${ui.title}</h1>
${forums.length === 0 ? html`<p class="muted">There are no forums here yet${ui.viewer.kind === 'guest' ? html`, or none you can see without <a href="/login">logging in</a>` : ''}.</p>` : ''}
${forums.length === 0 && isAdmin(ui.viewer) ? html`<p><a class="button" href="/admin">Set up the community</a></p>` : ''}
${groups.map(
    (group) => html`<section aria-labelledby="cat-${group.category.slug}"><h2 id="cat-${group.category.slug}">${group.category.name}</h2>
${group.category.description ? html`<p class="muted">${group.category.description}</p>` : ''}${forumRows(group.forums)}</section>`,
  )}
${loose.length > 0 ? html`<section aria-labelledby="cat-other"><h2 id="cat-other">${groups.length > 0 ? 'Other forums' : 'Forums'}</h2>${forumRows(loose)}</section>` : ''}`;
}

function topicBadges(topic: ForumTopicRow): SafeHtml {
  return html`${topic.pinned ? html`<span class="badge pin">Pinned</span>` : ''}${topic.locked ? html`<span class="badge">Locked</span>` : ''}${topic.hidden ? html`<span class="badge">Hidden</span>` : ''}`;
}

export function topicRows(topics: TopicView[]): SafeHtml {
  return html`<table class="list">
<thead><tr><th scope="col">Topic</th><th scope="col" class="num">Replies</th><th scope="col" class="num">Activity</th></tr></thead>
<tbody>${topics.map(
    ({ topic, author }) => html`<tr>
<td><a class="title" href="/t/${topic.id}">${topic.title}</a>${topicBadges(topic)}<div class="meta">by ${author?.username ?? 'a former member'} · ${time(topic.createdAt)}</div></td>
<td class="num">${Math.max(topic.postCount - 1, 0)}</td><td class="num">${time(topic.lastPostAt)}</td>
</tr>`,
  )}</tbody></table>`;
}

export function forumView(ui: UiContext, forum: ForumRow, topics: TopicView[], page: number, totalPages: number, canStart: boolean): SafeHtml {
  return html`<p class="crumbs"><a href="/">${ui.title}</a></p>
<div class="toolbar"><h1>${forum.name}</h1>${
    canStart ? html`<a class="button" href="/f/${forum.slug}/new">New topic</a>` : ui.viewer.kind === 'guest' ? html`<a href="/login?next=${encodeURIComponent(`/f/${forum.slug}`)}">Log in to start a topic</a>` : ''
  }</div>
${forum.description ? html`<p class="muted">${forum.description}</p>` : ''}
${forum.locked ? notice('warn', 'This forum is locked: only moderators start topics here.') : ''}
${topics.length === 0 ? html`<p class="muted">No topics yet.</p>` : topicRows(topics)}
${pager(page, totalPages, (n) => `/f/${forum.slug}?page=${n}`)}
<p class="muted"><a href="/f/${forum.slug}/feed.atom">Atom feed of this forum</a></p>`;
}

export function bodyField(id: string, label: string, value = ''): SafeHtml {
  return html`<div><label for="${id}">${label}</label><textarea id="${id}" name="body" required maxlength="${MAX_BODY_LENGTH}">${value}</textarea><span class="hint">Markdown: **bold**, _italic_, [links](https://example.com), \`code\`.</span></div>`;
}

function replyForm(ui: UiContext, topicId: string, parentId: string | undefined, view: string): SafeHtml {
  const id = parentId ? `reply-${parentId}` : 'reply-body';
  return html`<form class="stack wide" method="post" action="/t/${topicId}/reply">${csrfField(ui)}<input type="hidden" name="view" value="${view}">${parentId ? html`<input type="hidden" name="parent_id" value="${parentId}">` : ''}
${bodyField(id, parentId ? 'Your reply' : 'Reply to this topic')}<div><button type="submit">Post reply</button></div></form>`;
}

function postArticle(ui: UiContext, topicId: string, view: PostView, can: TopicPermissions, threaded: boolean): SafeHtml {
  const { post, author } = view;
  if (post.deletedAt) return html`<article class="post deleted" id="p-${post.id}"><p>This post was deleted.</p></article>`;
  const authorLink = author ? html`<a class="author" href="/u/${encodeURIComponent(author.username)}">${author.username}</a>` : html`<span class="author">a former member</span>`;
  const mayChange = can.changePost(post.authorId);
  return html`<article class="post" id="p-${post.id}" aria-label="Post by ${author?.username ?? 'a former member'}">
<header>${authorLink}<a class="meta" href="#p-${post.id}">${time(post.createdAt)}</a>${post.editedAt ? html`<span class="meta">edited</span>` : ''}</header>
<div class="body">${trustedHtml(post.bodyHtml)}</div>
<div class="actions">${
    threaded && can.reply ? html`<details class="reply"><summary>Reply</summary>${replyForm(ui, topicId, post.id, 'threaded')}</details>` : ''
  }${mayChange ? html`<a href="/p/${post.id}/edit">Edit</a>${postButton(ui, `/p/${post.id}/delete`, 'Delete')}` : ''}</div>
</article>`;
}

function threadNodes(ui: UiContext, topicId: string, nodes: PostNode[], can: TopicPermissions): SafeHtml {
  return html`${nodes.map(
    (node) => html`<li>${postArticle(ui, topicId, node, can, true)}${node.replies.length > 0 ? html`<ol class="replies">${threadNodes(ui, topicId, node.replies, can)}</ol>` : ''}</li>`,
  )}`;
}

export interface TopicPage {
  topic: ForumTopicRow;
  forum: ForumRow;
  view: 'classic' | 'threaded';
  posts: PostView[] | PostNode[];
  page: number;
  totalPages: number;
}

function moderationBar(ui: UiContext, topic: ForumTopicRow): SafeHtml {
  const toggle = (field: 'pinned' | 'locked' | 'hidden', on: string, off: string) =>
    postButton(ui, `/t/${topic.id}/moderate`, topic[field] ? off : on, { action: topic[field] ? `un${on.toLowerCase()}` : on.toLowerCase() }, 'secondary');
  return html`<div class="actions" role="group" aria-label="Moderation">${toggle('pinned', 'Pin', 'Unpin')}${toggle('locked', 'Lock', 'Unlock')}${toggle('hidden', 'Hide', 'Unhide')}</div>`;
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
${topic.locked ? notice('warn', 'This topic is locked: it takes no more replies.') : ''}
${
  threaded
    ? html`<ol class="thread">${threadNodes(ui, topic.id, data.posts as PostNode[], can)}</ol>`
    : html`${(data.posts as PostView[]).map((post) => postArticle(ui, topic.id, post, can, false))}`
}
${pager(data.page, data.totalPages, (n) => `/t/${topic.id}?view=${view}&page=${n}`)}
${
  can.reply
    ? html`<section aria-labelledby="reply-heading"><h2 id="reply-heading">Reply</h2>${replyForm(ui, topic.id, undefined, view)}</section>`
    : ui.viewer.kind === 'guest'
      ? html`<p><a href="/login?next=${encodeURIComponent(`/t/${topic.id}`)}">Log in to reply</a></p>`
      : ''
}`;
}

/** A search's filters as the form holds them ('' for unset). */
export interface SearchNarrowing {
  forum: string;
  author: string;
  after: string;
  before: string;
}

interface SearchForm {
  query: string;
  narrow: SearchNarrowing;
  forums: Array<{ slug: string; name: string }>;
}

export function searchView(form: SearchForm, hits: SearchHit[], page: number, totalPages: number): SafeHtml {
  const { query, narrow } = form;
  const narrowed = Object.values(narrow).some((value) => value !== '');
  const params = new URLSearchParams({ q: query, ...Object.fromEntries(Object.entries(narrow).filter(([, value]) => value !== '')) });
  return html`<h1>Search</h1>
<form class="stack" role="search" method="get" action="/search"><div><label for="q">Search topics and posts</label><input type="search" id="q" name="q" value="${query}" maxlength="200"></div>
<details class="filters"${narrowed ? html` open` : ''}><summary>Filters</summary><div class="stack">
<div><label for="forum">In forum</label><select id="forum" name="forum"><option value="">All forums</option>${form.forums.map((forum) => html`<option value="${forum.slug}"${forum.slug === narrow.forum ? html` selected` : ''}>${forum.name}</option>`)}</select></div>
<div><label for="author">Written by</label><input type="text" id="author" name="author" value="${narrow.author}" maxlength="40" autocomplete="off"></div>
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
            html`<li class="post"><a class="title" href="${hit.postId ? `/t/${hit.topic.id}?view=threaded#p-${hit.postId}` : `/t/${hit.topic.id}`}">${hit.topic.title}</a><div class="meta">by ${hit.author?.username ?? 'a former member'} · ${time(hit.topic.lastPostAt)}</div>${hit.excerptHtml ? html`<p class="excerpt">${trustedHtml(hit.excerptHtml)}</p>` : ''}</li>`,
        )}</ol>${pager(page, totalPages, (n) => `/search?${params.toString()}&page=${n}`)}`
    : ''
}`;
}

export function errorView(status: number, title: string, detail: string, loginHref: string | undefined): SafeHtml {
  return html`<h1>${title}</h1>${notice(status >= 500 ? 'error' : 'warn', detail)}${loginHref ? html`<p><a href="${loginHref}">Log in</a></p>` : ''}<p><a href="/">Back to the forum index</a></p>`;
}
