// Every field of the help desk that leaves the server.
import type { Static } from 'typebox';
import type { ForumMemberRow } from '../forum/members.js';
import type { AgentView } from './agents.js';
import type { MergeResult } from './merge.js';
import type { SlaTargets } from './sla.js';
import { slaView } from './sla.js';
import type {
  AgentOut,
  CannedReplyOut,
  CategoryOut,
  DraftOut,
  EntryOut,
  HistoryOut,
  MergeOut,
  SlaPolicyOut,
  TicketOut,
} from './schemas.js';
import type {
  CannedReplyRow,
  CategoryRow,
  ContactRow,
  DraftRow,
  HistoryRow,
  ListedTicketRow,
  ThreadEntryRow,
  TicketPriority,
} from './tables.js';

const iso = (time: Date | null): string | null => time?.toISOString() ?? null;

export function presentTicket(
  ticket: ListedTicketRow,
  requester: Pick<ContactRow, 'id' | 'email' | 'name'>,
  now = new Date(),
): Static<typeof TicketOut> {
  return {
    id: ticket.id,
    number: ticket.number,
    subject: ticket.subject,
    status: ticket.status,
    priority: ticket.priority,
    category_id: ticket.categoryId,
    assignee_id: ticket.assigneeId,
    requester: { id: requester.id, email: requester.email, name: requester.name },
    channel: ticket.channel,
    tags: ticket.tags,
    follow_up_of: ticket.followUpOf,
    created_at: ticket.createdAt.toISOString(),
    updated_at: ticket.updatedAt.toISOString(),
    first_response_at: iso(ticket.firstResponseAt),
    solved_at: iso(ticket.solvedAt),
    closed_at: iso(ticket.closedAt),
    sla: slaView(ticket, now),
  };
}

export function presentMerge(
  result: MergeResult,
  requester: Pick<ContactRow, 'id' | 'email' | 'name'>,
): Static<typeof MergeOut> {
  return {
    ticket: presentTicket(result.target, requester),
    merged: result.merged.map((ticket) => ({ id: ticket.id, number: ticket.number })),
    moved_entries: result.movedEntries,
  };
}

export function presentEntry(entry: ThreadEntryRow): Static<typeof EntryOut> {
  return {
    id: entry.id,
    ticket_id: entry.ticketId,
    author: { kind: entry.authorKind, id: entry.authorId },
    internal: entry.internal,
    body: entry.bodySource,
    body_html: entry.bodyHtml,
    message_id: entry.messageId,
    attachments: entry.attachments.map((a) => ({ filename: a.filename, content_type: a.content_type, size: a.size })),
    created_at: entry.createdAt.toISOString(),
  };
}

export function presentHistory(row: HistoryRow): Static<typeof HistoryOut> {
  return {
    id: String(row.id),
    event: row.event,
    actor: { kind: row.actorKind, id: row.actorId },
    from: row.fromValue,
    to: row.toValue,
    created_at: row.createdAt.toISOString(),
  };
}

export function presentCategory(row: CategoryRow): Static<typeof CategoryOut> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    archived_at: row.archivedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentCannedReply(row: CannedReplyRow): Static<typeof CannedReplyOut> {
  return {
    id: row.id,
    name: row.name,
    body: row.body,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentAgent(view: AgentView, member: Pick<ForumMemberRow, 'username'>): Static<typeof AgentOut> {
  return {
    id: view.agent.memberId,
    username: member.username,
    capacity: view.agent.capacity,
    available: view.agent.available,
    category_ids: view.categoryIds,
    open_tickets: view.openTickets,
    created_at: view.agent.createdAt.toISOString(),
  };
}

export function presentSlaPolicy(policy: SlaTargets & { priority: TicketPriority }): Static<typeof SlaPolicyOut> {
  return {
    priority: policy.priority,
    first_response_minutes: policy.firstResponseMinutes,
    resolution_minutes: policy.resolutionMinutes,
  };
}

export function presentDraft(row: DraftRow): Static<typeof DraftOut> {
  return { id: row.id, body: row.body, created_at: row.createdAt.toISOString(), model: row.model };
}
