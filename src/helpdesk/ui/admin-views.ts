// The help desk's settings pages (/desk/admin/...), for its admins: categories, agents, SLA targets,
// tags, canned replies and mail. Each is a list with a small form per row and one to add; every
// form posts and works without script.
import type { Flash } from '../../forum/ui/admin/views.js';
import { checkbox, textArea, textField } from '../../forum/ui/admin/fields.js';
import type { UiContext } from '../../forum/ui/context.js';
import { csrfField, notice, time } from '../../forum/ui/layout.js';
import { html, type SafeHtml } from '../../lib/html.js';
import type { AgentView } from '../agents.js';
import { PLACEHOLDERS } from '../canned-replies.js';
import type { SlaTargets } from '../sla.js';
import type { CannedReplyRow, CategoryRow, TicketPriority } from '../tables.js';
import type { TagCount } from '../tags.js';
import { inboxFrame, PRIORITY_WORDS } from './inbox-views.js';

const ADMIN_PAGES = [
  ['categories', 'Categories'],
  ['agents', 'Agents'],
  ['sla', 'SLA targets'],
  ['tags', 'Tags'],
  ['canned-replies', 'Canned replies'],
  ['mail', 'Mail'],
] as const;
export type AdminPage = (typeof ADMIN_PAGES)[number][0];

/** What a refused form showed: its values and the refusal, beside the form it came from. */
export interface Refused {
  /** The form: `new`, or the id of the row. */
  form: string;
  values: Record<string, string>;
  error: string;
}

function adminFrame(ui: UiContext, page: AdminPage, body: SafeHtml, flash?: Flash): SafeHtml {
  const heading = ADMIN_PAGES.find(([name]) => name === page)![1];
  const nav = html`<nav class="tabs admin-tabs desk-admin-tabs" aria-label="Help desk settings"><ul>${ADMIN_PAGES.map(
    ([name, label]) =>
      html`<li><a href="/desk/admin/${name}"${name === page ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`;
  return inboxFrame(ui, `admin/${page}`, heading, html`${nav}${body}`, flash);
}

const refusedFor = (refused: Refused | undefined, form: string) => (refused?.form === form ? refused : undefined);

export function categoriesView(
  ui: UiContext,
  categories: readonly CategoryRow[],
  counts: ReadonlyMap<string, number>,
  flash?: Flash,
  refused?: Refused,
): SafeHtml {
  const adding = refusedFor(refused, 'new');
  const row = (category: CategoryRow) => {
    const mine = refusedFor(refused, category.id);
    return html`<tr><th scope="row">${category.name}${category.archivedAt ? html` <span class="badge">Archived</span>` : ''}</th>
<td>${counts.get(category.id) ?? 0}</td>
<td><form class="inline" method="post" action="/desk/admin/categories/${category.id}">${csrfField(ui)}${textField('name', `New name for ${category.name}`, mine?.values.name ?? category.name, 'text', { id: `name-${category.id}`, hiddenLabel: true, required: true, maxlength: 100, error: mine?.error })}<button type="submit" class="small secondary">Rename<span class="sr-only"> ${category.name}</span></button></form></td>
<td><form class="inline" method="post" action="/desk/admin/categories/${category.id}/archive">${csrfField(ui)}<input type="hidden" name="archived" value="${category.archivedAt ? 'false' : 'true'}"><button type="submit" class="small secondary">${category.archivedAt ? 'Bring back' : 'Archive'}<span class="sr-only"> ${category.name}</span></button></form></td></tr>`;
  };
  const body = html`<p class="muted">What tickets are about, and what agents serve. An archived category is no longer offered for tickets; those in it keep it.</p>
${
  categories.length === 0
    ? html`<p class="muted">No categories yet.</p>`
    : html`<div class="scroll"><table class="list admin"><caption class="sr-only">Categories</caption><thead><tr><th scope="col">Category</th><th scope="col">Open tickets</th><th scope="col">Name</th><th scope="col"><span class="sr-only">Archive</span></th></tr></thead><tbody>${categories.map(row)}</tbody></table></div>`
}
<section class="panel" aria-labelledby="new-category"><h2 id="new-category">New category</h2>
<form class="stack" method="post" action="/desk/admin/categories">${csrfField(ui)}
${textField('name', 'Name', adding?.values.name ?? '', 'text', { required: true, maxlength: 100, error: adding?.error })}
${textArea('description', 'Description', adding?.values.description ?? '', { maxlength: 2000, hint: 'Optional: what belongs here.' })}
<div><button type="submit">Add category</button></div></form></section>`;
  return adminFrame(ui, 'categories', body, flash);
}

export function agentsView(
  ui: UiContext,
  agents: ReadonlyArray<AgentView & { username: string }>,
  categories: readonly CategoryRow[],
  flash?: Flash,
  refused?: Refused,
): SafeHtml {
  const offered = categories.filter((c) => !c.archivedAt);
  const card = (view: AgentView & { username: string }) => {
    const id = view.agent.memberId;
    const mine = refusedFor(refused, id);
    const served = offered.length
      ? html`<fieldset class="checks"><legend>Categories ${view.username} serves</legend>${offered.map((category) =>
          checkbox(`category-${category.id}`, category.name, view.categoryIds.includes(category.id), {
            id: `agent-${id}-category-${category.id}`,
          }),
        )}</fieldset>`
      : html`<p class="muted">No categories to serve yet.</p>`;
    return html`<li class="panel"><h2 id="agent-${id}">${view.username}</h2>
<p class="muted">${view.openTickets === 1 ? '1 open ticket' : `${view.openTickets} open tickets`} assigned · ${view.agent.available ? 'available' : 'away'}</p>
${mine ? notice('error', mine.error) : ''}
<form class="stack" method="post" action="/desk/admin/agents/${id}" aria-labelledby="agent-${id}">${csrfField(ui)}
${textField('capacity', `Capacity of ${view.username}`, mine?.values.capacity ?? String(view.agent.capacity), 'number', { id: `capacity-${id}`, required: true, hint: 'Open tickets assigned to them at most (0 to 1000).' })}
${checkbox('available', 'Available for new tickets', view.agent.available, { id: `available-${id}` })}
${served}
<div><button type="submit">Save<span class="sr-only"> ${view.username}</span></button></div></form></li>`;
  };
  const adding = refusedFor(refused, 'new');
  const body = html`<p class="muted">Agents are members of the community. An agent sees the tickets of the categories they serve and the uncategorized ones.</p>
<section class="panel" aria-labelledby="new-agent-heading"><h2 id="new-agent-heading">Make a member an agent</h2>
<form method="post" action="/desk/admin/agents" class="stack">${csrfField(ui)}
${textField('username', 'Username of the member', adding?.values.username ?? '', 'text', { id: 'agent-username', required: true, maxlength: 60, autocomplete: 'off', error: adding?.error, hint: 'They start available, with room for 10 open tickets; set their categories below.' })}
<div><button type="submit">Make agent</button></div></form></section>
${agents.length === 0 ? html`<p class="muted">No agents yet.</p>` : html`<ul class="cards desk-agents">${agents.map(card)}</ul>`}`;
  return adminFrame(ui, 'agents', body, flash);
}

export function slaView(
  ui: UiContext,
  policies: ReadonlyArray<SlaTargets & { priority: TicketPriority }>,
  flash?: Flash,
  refused?: Refused,
): SafeHtml {
  const value = (name: string, stored: number) => refused?.values[name] ?? String(stored);
  const row = (policy: SlaTargets & { priority: TicketPriority }) => {
    const word = PRIORITY_WORDS[policy.priority];
    return html`<tr><th scope="row"><span class="badge priority priority-${policy.priority}">${word}</span></th>
<td>${textField(`first-${policy.priority}`, `First response within, ${word} (minutes)`, value(`first-${policy.priority}`, policy.firstResponseMinutes), 'number', { hiddenLabel: true, required: true })}</td>
<td>${textField(`resolution-${policy.priority}`, `Resolution within, ${word} (minutes)`, value(`resolution-${policy.priority}`, policy.resolutionMinutes), 'number', { hiddenLabel: true, required: true })}</td></tr>`;
  };
  const body = html`<p class="muted">Targets per priority, in minutes (at most 525,600, a year). They apply to tickets opened, or given the priority, from now on; the clock pauses while a ticket is pending or on hold.</p>
${refused ? notice('error', refused.error) : ''}
<form method="post" action="/desk/admin/sla">${csrfField(ui)}
<div class="scroll"><table class="list admin desk-sla"><caption class="sr-only">SLA targets</caption><thead><tr><th scope="col">Priority</th><th scope="col">First response (minutes)</th><th scope="col">Resolution (minutes)</th></tr></thead><tbody>${policies.map(row)}</tbody></table></div>
<p><button type="submit">Save targets</button></p></form>`;
  return adminFrame(ui, 'sla', body, flash);
}

export function tagsView(ui: UiContext, tags: readonly TagCount[], flash?: Flash, refused?: Refused): SafeHtml {
  const row = (tag: TagCount, index: number) => {
    const mine = refusedFor(refused, tag.tag);
    return html`<tr><th scope="row"><a href="/desk/search?tag=${encodeURIComponent(tag.tag)}">${tag.tag}</a></th><td>${tag.tickets}</td>
<td><form class="inline" method="post" action="/desk/admin/tags/rename">${csrfField(ui)}<input type="hidden" name="tag" value="${tag.tag}">${textField('name', `New name for the tag ${tag.tag}`, mine?.values.name ?? tag.tag, 'text', { id: `tag-${index}`, hiddenLabel: true, required: true, maxlength: 50, error: mine?.error })}<button type="submit" class="small secondary">Rename<span class="sr-only"> ${tag.tag}</span></button></form></td>
<td><form class="inline" method="post" action="/desk/admin/tags/delete">${csrfField(ui)}<input type="hidden" name="tag" value="${tag.tag}"><button type="submit" class="small danger">Delete<span class="sr-only"> the tag ${tag.tag}</span></button></form></td></tr>`;
  };
  const body = html`<p class="muted">The tags tickets carry. Renaming or deleting one changes every ticket that carries it, and each ticket's history says so. Tags are set on a ticket's page, in its triage panel.</p>
${
  tags.length === 0
    ? html`<p class="muted">No ticket carries a tag yet.</p>`
    : html`<div class="scroll"><table class="list admin"><caption class="sr-only">Tags</caption><thead><tr><th scope="col">Tag</th><th scope="col">Tickets</th><th scope="col">Name</th><th scope="col"><span class="sr-only">Delete</span></th></tr></thead><tbody>${tags.map(row)}</tbody></table></div>`
}`;
  return adminFrame(ui, 'tags', body, flash);
}

const PLACEHOLDER_HINT = `Markdown. Placeholders filled in for the ticket: ${PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ')}.`;

export function cannedRepliesView(
  ui: UiContext,
  replies: readonly CannedReplyRow[],
  flash?: Flash,
  refused?: Refused,
): SafeHtml {
  const adding = refusedFor(refused, 'new');
  const item = (reply: CannedReplyRow) => {
    const mine = refusedFor(refused, reply.id);
    return html`<li class="panel"><h2 id="canned-${reply.id}">${reply.name}</h2><p class="meta">Changed ${time(reply.updatedAt)}</p>
<details${mine ? ' open' : ''}><summary>Edit<span class="sr-only"> ${reply.name}</span></summary>
${mine ? notice('error', mine.error) : ''}
<form class="stack wide" method="post" action="/desk/admin/canned-replies/${reply.id}">${csrfField(ui)}
${textField('name', 'Name', mine?.values.name ?? reply.name, 'text', { id: `name-${reply.id}`, required: true, maxlength: 100 })}
${textArea('body', 'Text', mine?.values.body ?? reply.body, { id: `body-${reply.id}`, maxlength: 20_000, hint: PLACEHOLDER_HINT })}
<div><button type="submit">Save</button></div></form></details>
<pre class="canned-body">${reply.body}</pre>
<form class="inline" method="post" action="/desk/admin/canned-replies/${reply.id}/delete">${csrfField(ui)}<button type="submit" class="small danger">Delete<span class="sr-only"> ${reply.name}</span></button></form></li>`;
  };
  const body = html`<p class="muted">Snippets agents insert into a reply from the ticket page and edit before sending.</p>
${replies.length === 0 ? html`<p class="muted">No canned replies yet.</p>` : html`<ul class="cards desk-canned">${replies.map(item)}</ul>`}
<section class="panel" aria-labelledby="new-canned"><h2 id="new-canned">New canned reply</h2>
${adding ? notice('error', adding.error) : ''}
<form class="stack wide" method="post" action="/desk/admin/canned-replies">${csrfField(ui)}
${textField('name', 'Name', adding?.values.name ?? '', 'text', { id: 'canned-name', required: true, maxlength: 100 })}
${textArea('body', 'Text', adding?.values.body ?? '', { id: 'canned-body', maxlength: 20_000, hint: PLACEHOLDER_HINT })}
<div><button type="submit">Add canned reply</button></div></form></section>`;
  return adminFrame(ui, 'canned-replies', body, flash);
}

interface MailPage {
  /** The applied values of the help desk's mail settings, or what a refused form carried. */
  values: { HELPDESK_SUPPORT_ADDRESS: string; HELPDESK_SENDER_NAME: string; HELPDESK_AUTO_REPLY: boolean };
  /** The name replies come from when HELPDESK_SENDER_NAME is empty: the community's title. */
  titleName: string;
  /** Whether this server sends the community's mail. */
  sends: boolean;
  /** Other settings saved but not applied, which saving here applies too. */
  pendingElsewhere: string[];
  /** Where the community's admins change the other settings. */
  settingsUrl: string;
}

export function mailView(ui: UiContext, page: MailPage, flash?: Flash, refused?: Refused): SafeHtml {
  const { values } = page;
  const address = values.HELPDESK_SUPPORT_ADDRESS;
  const sender = values.HELPDESK_SENDER_NAME || page.titleName;
  const body = html`<p class="muted">Requesters write to the support address; agents' public replies and the acknowledgements of new tickets go out from it.</p>
<dl class="facts">
<dt>Replies come from</dt><dd>${address ? `${sender} <${address}>` : html`<span class="muted">nobody: without a support address tickets come from the contact form and the API only, and replies are not mailed</span>`}</dd>
<dt>Mail server</dt><dd>${page.sends ? 'This server sends the community’s mail.' : html`<span class="muted">none: replies stay on the requester’s ticket page. Set one in <a href="${page.settingsUrl}">the community settings</a>.</span>`}</dd>
</dl>
<section class="panel" aria-labelledby="mail-form-heading"><h2 id="mail-form-heading">Mail settings</h2>
<form method="post" action="/desk/admin/mail" class="stack">${csrfField(ui)}
${refused ? html`<p class="field-error" role="alert">${refused.error}</p>` : ''}
${textField('HELPDESK_SUPPORT_ADDRESS', 'Support address', address, 'email', { maxlength: 254, autocomplete: 'off', hint: 'Where requesters write; what receives mail for it must hand it to the inbound route (docs/helpdesk.md). Empty: no mail channel.' })}
${textField('HELPDESK_SENDER_NAME', 'Sender name', values.HELPDESK_SENDER_NAME, 'text', { maxlength: 200, placeholder: page.titleName, hint: `The name in the From line. Empty: the community’s title, ${page.titleName}.` })}
${checkbox('HELPDESK_AUTO_REPLY', 'Acknowledge new tickets by mail', values.HELPDESK_AUTO_REPLY, { hint: 'A requester whose mail, or a signed-in member whose contact form, opens a ticket gets its number at once. Mail marked as automatic is never answered.' })}
${page.pendingElsewhere.length > 0 ? notice('warn', `Saving also applies the other settings waiting in the community settings: ${page.pendingElsewhere.join(', ')}.`) : ''}
<div><button type="submit">Save and apply</button></div></form></section>`;
  return adminFrame(ui, 'mail', body, flash);
}
