// The composer: the one form that writes a reply, a new topic or an edit of a post
// (docs/decisions/0094-forum-composer.md). Without script it is a multipart form whose buttons post,
// preview (a server round trip that saves the draft, if the form keeps one, and shows the sanitized
// result) or upload the chosen file into the text. The forum
// script (forum-script.js.ts) adds a live preview, draft saving as one types, uploads on choosing a
// file, @mention suggestions and quoting; it finds its way by the `data-` marks set here.
import { MAX_BODY_LENGTH, MAX_TITLE_LENGTH } from '../schemas.js';
import type { ForumRow, ForumTopicRow } from '../tables.js';
import type { PostView, VisiblePost } from '../topics.js';
import { ACCEPTED_UPLOADS, MAX_UPLOAD_BYTES } from '../uploads.js';
import type { UiContext } from './context.js';
import { html, trustedHtml, type SafeHtml } from '../../lib/html.js';
import { csrfField, notice } from './layout.js';

export interface ComposerValues {
  title?: string | undefined;
  body: string;
}

export interface Composer {
  action: string;
  /** The id of the text box (labels, previews and the script key on it). */
  id: string;
  label: string;
  submit: string;
  /** Where the form's draft is kept; an edit keeps none (the post itself is there). */
  draftKey?: string | undefined;
  values: ComposerValues;
  /** A new topic's form asks for a title (one composer a page: its field is `title`). */
  withTitle?: boolean;
  hidden?: Record<string, string>;
  /** Sanitized HTML of the body, after a preview or an upload. */
  preview?: string | undefined;
  /** The member has a saved draft here (offers to discard it). */
  drafted?: boolean;
}

const UPLOAD_HINT = `PNG, JPEG, GIF, WebP, PDF, ZIP or plain text, up to ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB.`;

export function composerForm(ui: UiContext, c: Composer): SafeHtml {
  const hidden = Object.entries(c.hidden ?? {});
  return html`<form class="stack wide composer" method="post" action="${c.action}" enctype="multipart/form-data" \
data-composer${
    c.draftKey ? html` data-draft="${c.draftKey}"` : ''
  }>${csrfField(ui)}${hidden.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${
  c.withTitle
    ? html`<div><label for="title">Title</label>\
<input type="text" id="title" name="title" value="${c.values.title ?? ''}" required maxlength="${MAX_TITLE_LENGTH}">\
</div>`
    : ''
}
<div class="field"><label for="${c.id}">${c.label}</label>\
<textarea id="${c.id}" name="body" required maxlength="${MAX_BODY_LENGTH}" aria-describedby="${c.id}-hint" data-body>\
${c.values.body}</textarea>\
<span class="hint" id="${c.id}-hint">\
Markdown: **bold**, _italic_, [links](https://example.com), \`code\`, &gt; quotes. Type @ and a name to mention a \
member.</span></div>
<div class="attach"><label for="${c.id}-file">Attach an image or a file <span class="hint">(optional)</span></label>\
<input type="file" id="${c.id}-file" name="file" accept="${ACCEPTED_UPLOADS.join(',')}" \
aria-describedby="${c.id}-file-hint" data-file>\
<span class="hint" id="${c.id}-file-hint">\
${UPLOAD_HINT} It goes into the text where the cursor is, or at the end.</span></div>
<section class="preview" aria-labelledby="${c.id}-preview-title" data-preview${
    c.preview === undefined ? html` hidden` : ''
  }><h3 id="${c.id}-preview-title">Preview</h3>\
<div class="body" aria-live="polite">${trustedHtml(c.preview ?? '')}</div></section>
<div class="actions"><button type="submit" name="intent" value="post">${c.submit}</button>\
<button type="submit" name="intent" value="preview" class="secondary" formnovalidate>Preview</button>\
<button type="submit" name="intent" value="attach" class="secondary" formnovalidate data-attach>Upload file</button>${
    c.drafted
      ? html`<button type="submit" name="intent" value="discard" class="link" formnovalidate>Discard draft</button>`
      : ''
  }<span class="hint" role="status" data-draft-status>${c.drafted ? 'Draft restored.' : ''}</span></div></form>`;
}

export function newTopicView(
  ui: UiContext,
  forum: ForumRow,
  composer: Omit<Composer, 'action' | 'id' | 'label' | 'submit' | 'withTitle'>,
  error?: string,
  done?: string,
): SafeHtml {
  return html`<p class="crumbs"><a href="/">${ui.title}</a> › <a href="/f/${forum.slug}">${forum.name}</a></p>\
<h1>New topic</h1>${error ? notice('error', error) : ''}${done ? notice('ok', done) : ''}
${composerForm(ui, {
  ...composer,
  action: `/f/${forum.slug}/new`,
  id: 'body',
  label: 'Message',
  submit: 'Start topic',
  withTitle: true,
})}`;
}

/** The page of a reply on its own: where a preview or an upload without script lands, and a reply to one post. */
export function replyPageView(
  ui: UiContext,
  topic: ForumTopicRow,
  forum: ForumRow,
  parent: PostView | undefined,
  composer: Omit<Composer, 'action' | 'id' | 'label' | 'submit'>,
  error?: string,
  done?: string,
): SafeHtml {
  const to = parent ? (parent.author?.username ?? 'a former member') : undefined;
  return html`<p class="crumbs"><a href="/">${ui.title}</a> › <a href="/f/${forum.slug}">${forum.name}</a> › \
<a href="/t/${topic.id}">${topic.title}</a></p>
<h1>Reply to “${topic.title}”</h1>${error ? notice('error', error) : ''}${done ? notice('ok', done) : ''}
${
  parent
    ? html`<blockquote class="replying-to"><p class="meta">In reply to <a href="/p/${parent.post.id}">@${to}</a></p>\
<div class="body">${trustedHtml(parent.post.bodyHtml)}</div></blockquote>`
    : ''
}
${composerForm(ui, {
  ...composer,
  action: `/t/${topic.id}/reply`,
  id: 'reply-body',
  label: parent ? `Your reply to @${to}` : 'Reply to this topic',
  submit: 'Post reply',
})}`;
}

/** Editing a post: the composer without a draft, saving over the post. */
export function editPostView(
  ui: UiContext,
  post: VisiblePost,
  composer: Pick<Composer, 'values' | 'preview'>,
  error?: string,
  done?: string,
): SafeHtml {
  return html`<p class="crumbs"><a href="/t/${post.topicId}#p-${post.id}">Back to the topic</a></p><h1>Edit post</h1>${
    error ? notice('error', error) : ''
  }${done ? notice('ok', done) : ''}
${composerForm(ui, { ...composer, action: `/p/${post.id}/edit`, id: 'body', label: 'Message', submit: 'Save' })}`;
}
