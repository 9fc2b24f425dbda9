// The moderators' flag queue: open flags with the post, its author and the reporter's reason, with
// the queue's actions (hide the post, dismiss), one card per post with each of its flags; hidden and
// dismissed flags are the record of who decided what, and when.
import type { FlagView } from '../flags.js';
import { FLAG_STATES, type ForumFlagRow } from '../tables.js';
import type { UiContext } from './context.js';
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { notice, pager, postButton, relativeTime } from './layout.js';
import { modTabs, sanctionForm } from './moderation-views.js';
import { FLAG_REASON_WORDS } from './read-views.js';

type FlagState = ForumFlagRow['state'];

const TAB_WORDS: Record<FlagState, string> = { open: 'Open', hidden: 'Hidden', dismissed: 'Dismissed' };
type Done = 'hidden' | 'dismissed' | 'warned' | 'suspended';
const DONE_WORDS: Record<Done, string> = {
  hidden: 'The post was hidden.',
  dismissed: 'The flag was dismissed; the post stays.',
  warned: 'The post was hidden and its author warned.',
  suspended: 'The post was hidden and its author suspended.',
};

function member(author: { username: string } | null): SafeHtml {
  return author
    ? html`<a href="/u/${encodeURIComponent(author.username)}">${author.username}</a>`
    : html`a former member`;
}

/** One flag of a post's card: the reason, who flagged it and when, the note, and (closed) who decided. */
function flagLine({ flag, reporter, resolvedBy }: FlagView): SafeHtml {
  return html`<li id="flag-${flag.id}"><strong>${FLAG_REASON_WORDS[flag.reason]}</strong>\
<span class="meta"> · flagged by ${member(reporter)} ${relativeTime(flag.createdAt)}</span>${
    flag.note ? html`<p class="flag-note">“${flag.note}”</p>` : ''
  }${
    flag.state === 'open'
      ? ''
      : html`<p class="meta">${flag.state === 'hidden' ? 'Hidden' : 'Dismissed'} by ${member(resolvedBy)}${
          flag.resolvedAt ? html` ${relativeTime(flag.resolvedAt)}` : ''
        }</p>`
  }</li>`;
}

/**
 * A flagged post as one card with every flag of it on the page (a post flagged three times is one
 * card with three reasons); a decision on an open card closes all of the post's open flags.
 */
function flagCard(ui: UiContext, flags: FlagView[]): SafeHtml {
  const { flag, post } = flags[0]!;
  const deleted = post.post.deletedAt !== null;
  const where = deleted ? `/t/${post.post.topicId}` : `/p/${post.post.id}`;
  const count = flags.length;
  return html`<li class="card" id="flagged-${post.post.id}">
<div class="card-head"><strong>${count === 1 ? FLAG_REASON_WORDS[flag.reason] : `Flagged ${count} times`}</strong></div>
<ul class="flag-reasons">${flags.map(flagLine)}</ul>
<div class="flagged post${
    deleted ? ' deleted' : ''
  }"><p class="meta">Post by ${member(post.author)}, ${relativeTime(post.post.createdAt)} · \
<a href="${where}">open in its topic</a></p>${
    deleted ? html`<p>The post is hidden.</p>` : html`<div class="body">${trustedHtml(post.post.bodyHtml)}</div>`
  }</div>
${
  flag.state === 'open'
    ? html`<div class="actions" role="group" aria-label="Decide on this post's flags">${postButton(
        ui,
        `/mod/flags/${flag.id}`,
        'Hide post',
        { action: 'hide' },
        'danger small',
      )}${postButton(ui, `/mod/flags/${flag.id}`, count === 1 ? 'Dismiss' : 'Dismiss all', { action: 'dismiss' }, 'secondary small')}${
        post.author ? sanctionForm(ui, `/mod/flags/${flag.id}`, flag.id, 'Hide and warn or suspend the author…') : ''
      }</div>`
    : ''
}
</li>`;
}

/** The page's flags by post, in the order their posts first appear. */
function byPost(flags: FlagView[]): FlagView[][] {
  const groups = new Map<string, FlagView[]>();
  for (const view of flags) {
    const group = groups.get(view.post.post.id);
    if (group) group.push(view);
    else groups.set(view.post.post.id, [view]);
  }
  return [...groups.values()];
}

interface FlagQueuePage {
  state: FlagState;
  flags: FlagView[];
  page: number;
  totalPages: number;
  /** What the moderator just did, for the notice. */
  done: Done | undefined;
}

export function flagQueueView(ui: UiContext, data: FlagQueuePage): SafeHtml {
  return html`<h1>Flags</h1>${modTabs('flags')}
${data.done ? notice('ok', DONE_WORDS[data.done]) : ''}
<nav class="tabs" aria-label="Flags by state">${FLAG_STATES.map(
    (state) =>
      html`<a href="/mod/flags?state=${state}"${
        state === data.state ? html` aria-current="page"` : ''
      }>${TAB_WORDS[state]}</a>`,
  )}</nav>
${
  data.flags.length === 0
    ? html`<p class="muted">${
        data.state === 'open'
          ? 'No open flags: nothing waits for a moderator.'
          : `No ${TAB_WORDS[data.state].toLowerCase()} flags yet.`
      }</p>`
    : html`<ul class="cards">${byPost(data.flags).map((flags) => flagCard(ui, flags))}</ul>`
}
${
  data.state === 'open'
    ? html`<p class="muted">Hiding a post removes it from every page, search and feed, as a deletion does; \
either decision closes every open flag of that post.</p>`
    : ''
}
${pager(data.page, data.totalPages, (n) => `/mod/flags?state=${data.state}&page=${n}`)}`;
}
