// The help desk group (5 tools) over the Help desk API of the tenant, with an API key (helpdesk-read
// gets the two read tools, helpdesk-write all five) or, without a key, an agent's forum token (the
// agent's own permissions: the categories they serve).
import { z } from 'zod';
import { ApiProblem, type BlumeClient } from '../api.js';
import { defineTool, type ToolDefinition, type ToolGroup } from '../tool.js';
import { pageArgs, pageNote, pageQuery, paginationOf, Pagination } from './pagination.js';

const API = '/api/helpdesk/v1';
const status = z.enum(['new', 'open', 'pending', 'on_hold', 'solved', 'closed']);
const priority = z.enum(['low', 'normal', 'high', 'urgent']);
const Ticket = z.looseObject({
  id: z.string(),
  number: z.number(),
  subject: z.string(),
  status: z.string(),
  priority: z.string(),
  category_id: z.string().nullable(),
  assignee_id: z.string().nullable(),
  requester: z.looseObject({ email: z.string(), name: z.string().nullable() }),
  tags: z.array(z.string()),
  sla: z.looseObject({ breached: z.boolean(), paused: z.boolean() }),
});
type Ticket = z.infer<typeof Ticket>;
const Entry = z.looseObject({
  id: z.string(),
  internal: z.boolean(),
  body: z.string(),
  author: z.looseObject({ kind: z.string() }),
  created_at: z.string(),
});
type Entry = z.infer<typeof Entry>;
const Draft = z.looseObject({ id: z.string(), body: z.string(), model: z.string() });
const ticketArg = z.string().min(1).describe('The ticket id, or its number.');
const categoryArg = z.string().describe('A category id, or none.');
const assigneeArg = z.string().describe('An agent id, none (unassigned) or me.');

const ticketPath = (id: string, rest = ''): string => `${API}/tickets/${encodeURIComponent(id)}${rest}`;
const line = (t: Ticket): string =>
  `#${t.number} [${t.status}/${t.priority}${t.sla.breached ? ', SLA breached' : ''}] ${t.subject} (${t.requester.email})`;

function readTools(client: BlumeClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'helpdesk_list_tickets',
      title: 'List tickets',
      description:
        'Tickets you may see, newest activity first, filtered by status or priority (comma lists), category_id, assignee_id (an agent id, none, or me), requester e-mail, tag, full text q, sla (breached, at_risk) or opening date (created_after, created_before).',
      input: {
        status: z
          .string()
          .optional()
          .describe('A status, or a comma list: new, open, pending, on_hold, solved, closed.'),
        priority: z.string().optional().describe('A priority, or a comma list: low, normal, high, urgent.'),
        category_id: categoryArg.optional(),
        assignee_id: assigneeArg.optional(),
        requester: z.string().optional().describe("A requester's e-mail address or contact id."),
        tag: z.string().optional(),
        q: z.string().min(1).optional(),
        sla: z.enum(['breached', 'at_risk']).optional(),
        created_after: z.string().optional().describe('Opened at or after this date (2026-11-01) or ISO 8601 time.'),
        created_before: z.string().optional().describe('Opened before this date or ISO 8601 time.'),
        sort: z
          .string()
          .optional()
          .describe(
            'created_at, updated_at, number, priority, status or sla_due (the next SLA due time of unsolved ' +
              'tickets, most overdue first); a leading - sorts descending.',
          ),
        ...pageArgs,
      },
      output: { tickets: z.array(Ticket), pagination: Pagination },
      hints: { readOnly: true },
      run: async ({ category_id, assignee_id, page, page_size, ...filters }) => {
        const query = pageQuery({ page, page_size });
        // The REST list names these filters `category` and `assignee`; the tools say `_id` throughout, as triage does.
        const answer = await client.call<Ticket[]>('helpdesk', 'GET', `${API}/tickets`, {
          query: { ...filters, category: category_id, assignee: assignee_id, ...query },
        });
        const pagination = paginationOf(answer, query.page_size);
        return {
          data: { tickets: answer.data, pagination },
          text: `${answer.data.length} tickets: ${pageNote('helpdesk_list_tickets', pagination)}.`,
        };
      },
    }),
    defineTool({
      name: 'helpdesk_get_ticket',
      title: 'Read a ticket',
      description:
        'One ticket with a page of its thread: public replies and, unless internal is false, the internal notes (oldest first).',
      input: { ticket_id: ticketArg, internal: z.boolean().optional(), ...pageArgs },
      output: { ticket: Ticket, thread: z.array(Entry), pagination: Pagination },
      hints: { readOnly: true },
      run: async ({ ticket_id, internal, ...args }) => {
        const query = pageQuery(args);
        const ticket = (await client.call<Ticket>('helpdesk', 'GET', ticketPath(ticket_id))).data;
        const answer = await client.call<Entry[]>('helpdesk', 'GET', ticketPath(ticket.id, '/replies'), {
          query: { ...query, ...(internal === false ? { internal: 'false' } : {}) },
        });
        const pagination = paginationOf(answer, query.page_size);
        return {
          data: { ticket, thread: answer.data, pagination },
          text: `${line(ticket)}\nThread: ${pageNote('helpdesk_get_ticket', pagination)}.`,
        };
      },
    }),
  ];
}

function writeTools(client: BlumeClient): ToolDefinition[] {
  return [
    defineTool({
      name: 'helpdesk_reply',
      title: 'Reply on a ticket',
      description:
        'Adds a public reply (mailed to the requester on e-mail tickets) or, with internal: true, an internal note only agents see. body is Markdown.',
      input: { ticket_id: ticketArg, body: z.string().min(1), internal: z.boolean().optional() },
      output: { entry: Entry },
      // A public reply on an e-mail ticket is mailed to the customer.
      hints: { openWorld: true, creates: true },
      run: async ({ ticket_id, body, internal }) => {
        const entry = (
          await client.call<Entry>('helpdesk', 'POST', ticketPath(ticket_id, '/replies'), {
            json: { body, internal: internal ?? false },
          })
        ).data;
        return {
          data: { entry },
          text: `${entry.internal ? 'Internal note' : 'Public reply'} ${entry.id} added to ticket ${ticket_id}.`,
        };
      },
    }),
    defineTool({
      name: 'helpdesk_triage',
      title: 'Triage a ticket',
      description:
        'Sets any of status, priority, category_id, assignee_id (null unassigns) and tags (replaces them); agents may triage only the categories they serve.',
      input: {
        ticket_id: ticketArg,
        status: status.optional(),
        priority: priority.optional(),
        category_id: z.string().nullable().optional().describe('A category id; null clears it.'),
        assignee_id: z.string().nullable().optional().describe('An agent id; null unassigns.'),
        tags: z.array(z.string()).optional(),
      },
      output: { ticket: Ticket },
      hints: { idempotent: true },
      run: async ({ ticket_id, ...change }) => {
        const patch = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
        if (Object.keys(patch).length === 0)
          throw new ApiProblem(
            'Nothing to change: give at least one of status, priority, category_id, assignee_id or tags.',
            400,
            'nothing_to_change',
            {},
          );
        const ticket = (await client.call<Ticket>('helpdesk', 'PATCH', ticketPath(ticket_id), { json: patch })).data;
        return { data: { ticket }, text: `Triaged: ${line(ticket)}` };
      },
    }),
    defineTool({
      name: 'helpdesk_draft_reply',
      title: 'Draft a reply with AI',
      description:
        "Asks the site's AI provider for a reply to the ticket's thread (internal notes only with include_internal). The draft is stored on the ticket for a person to edit and send; it is never sent.",
      input: {
        ticket_id: ticketArg,
        instructions: z.string().max(2000).optional(),
        include_internal: z.boolean().optional(),
      },
      output: { draft: Draft },
      // The thread goes to the site's AI provider.
      hints: { openWorld: true, creates: true },
      run: async ({ ticket_id, instructions, include_internal }) => {
        const draft = (
          await client.call<z.infer<typeof Draft>>('helpdesk', 'POST', ticketPath(ticket_id, '/draft-reply'), {
            json: { internal: include_internal ?? false, ...(instructions ? { instructions } : {}) },
          })
        ).data;
        return { data: { draft }, text: `Draft ${draft.id} (${draft.model}), stored on the ticket and not sent:` };
      },
    }),
  ];
}

export const helpdeskTools: ToolGroup = {
  name: 'helpdesk',
  credential: ({ apiKey, forumToken }) => (apiKey ? 'apiKey' : forumToken ? 'forumToken' : undefined),
  tools: async ({ client }) => {
    const { tenantUrl, apiKey, forumToken } = client.credentials;
    if (!tenantUrl || (!apiKey && !forumToken)) return [];
    const list = await client.request('helpdesk', 'GET', `${API}/tickets`, { query: { page_size: 1 } });
    // A key without a help desk scope (a Content API key), or a member who is not an agent: no group.
    if (list.status === 403 || (list.status === 401 && !apiKey)) return [];
    if (list.status !== 200) await client.call('helpdesk', 'GET', `${API}/tickets`, { query: { page_size: 1 } });
    // Whether the credential may write, asked without changing anything: a triage of a ticket that does not exist.
    const probe = await client.request('helpdesk', 'PATCH', ticketPath('0'), { json: { priority: 'normal' } });
    return probe.status === 403 ? readTools(client) : [...readTools(client), ...writeTools(client)];
  },
};
