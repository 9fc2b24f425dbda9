// Tickets and their thread: opening a ticket, adding a reply or note, finding a ticket by id, number
// or e-mail Message-ID. Both writes are idempotent on the entry's Message-ID (unique per site): a
// repeated delivery answers what the first one made, `created: false`. Every change is in the
// ticket's history, written in the same transaction.
import { and, desc, eq, exists, inArray, or, sql } from 'drizzle-orm';
import { renderBody } from '../forum/markdown.js';
import type { Executor } from '../db/client.js';
import { preparedStatement } from '../db/prepared.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { isEmail } from '../lib/email.js';
import { insertAssigned } from './assignment.js';
import { recordHistory, SYSTEM, type Actor } from './history.js';
import { insertNumberedTicket, type NumberedTicket } from './numbered-insert.js';
import { slaTargets, startClock, statusChange } from './sla.js';
import {
  helpdeskCategories,
  helpdeskContacts,
  helpdeskEntries,
  helpdeskHistory,
  helpdeskTickets,
  type AttachmentRef,
  type ContactRow,
  type ThreadEntryRow,
  type TicketChannel,
  type TicketPriority,
  type TicketRow,
} from './tables.js';

/** A requester's reply to a ticket solved or closed at most this long ago reopens it; later ones open a follow-up. */
export const REOPEN_WINDOW_DAYS = 7;

interface RequesterInput {
  email: string;
  name?: string | null | undefined;
}

interface OpenTicketInput {
  subject: string;
  /** Markdown. */
  body: string;
  requester: RequesterInput;
  channel: TicketChannel;
  priority?: TicketPriority | undefined;
  categoryId?: string | null | undefined;
  tags?: string[] | undefined;
  /** The e-mail Message-ID, angle brackets included: a second delivery answers the first ticket. */
  messageId?: string | null | undefined;
  attachments?: AttachmentRef[] | undefined;
  /** The body is mail text: its line breaks are kept when rendered. */
  mailText?: boolean | undefined;
}

type EntryAuthor =
  /** The ticket's requester, or the contact with this address (someone copied on the thread). */
  | { kind: 'requester'; email?: string | undefined; name?: string | null | undefined }
  /** An agent (member id), or null for a caller with no member (an API key). */
  | { kind: 'agent'; memberId: string | null };

interface EntryInput {
  /** Markdown. */
  body: string;
  author: EntryAuthor;
  /** An internal note: agents only, never shown to the requester or mailed. */
  internal?: boolean | undefined;
  messageId?: string | null | undefined;
  attachments?: AttachmentRef[] | undefined;
  /** The body is mail text: its line breaks are kept when rendered. */
  mailText?: boolean | undefined;
  /**
   * Why a requester's entry is machine-sent (an auto-reply filed on its ticket), or undefined: such
   * an entry never reopens, wakes or follows up its ticket.
   */
  automated?: string | undefined;
}

export interface TicketWrite {
  /** The ticket the entry is on: for a late reply to a closed ticket, its follow-up. */
  ticket: TicketRow;
  entry: ThreadEntryRow;
  /** False when the Message-ID was on file: nothing was written. */
  created: boolean;
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  for (const candidate of [error, (error as { cause?: unknown })?.cause]) {
    const e = candidate as { code?: string; constraint?: string; message?: string } | undefined;
    if (e?.code === '23505' && (e.constraint === constraint || (e.message ?? '').includes(constraint))) return true;
  }
  return false;
}

function invalid(detail: string, field: string): AppError {
  return new AppError('invalid_ticket', detail, { errors: [{ field, message: detail }] });
}

/** Tags as stored: trimmed, lower case, each once. */
export function normalizeTags(tags: readonly string[]): string[] {
  const out = [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter((tag) => tag.length > 0))];
  if (out.length > 20) throw invalid('A ticket has at most 20 tags.', 'tags');
  const long = out.find((tag) => tag.length > 50);
  if (long) throw invalid(`The tag "${long.slice(0, 20)}..." is longer than 50 characters.`, 'tags');
  return out;
}

function checkBody(body: string): void {
  if (body.trim().length === 0) throw invalid('The body is empty.', 'body');
}

export async function requireCategory(db: Executor, siteId: string, categoryId: string): Promise<void> {
  const [row] = await db
    .select({ id: helpdeskCategories.id, name: helpdeskCategories.name, archivedAt: helpdeskCategories.archivedAt })
    .from(helpdeskCategories)
    .where(and(eq(helpdeskCategories.siteId, siteId), eq(helpdeskCategories.id, categoryId)));
  if (!row)
    throw new AppError('invalid_ticket', `No help desk category "${categoryId}".`, {
      errors: [{ field: 'category_id', message: 'no such category' }],
    });
  if (row.archivedAt)
    throw new AppError('invalid_ticket', `The category "${row.name}" is archived: no ticket goes into it.`, {
      errors: [{ field: 'category_id', message: 'archived category' }],
    });
}

/**
 * Every opening and every requester's reply names its contact: prepared (src/db/prepared.ts). A
 * contact on file is written only to fill in a missing name, so that a known requester's ticket
 * does not end every list the site's nodes keep (a contact's write files no changes, decision 0150).
 */
const contactUpsert = preparedStatement('helpdesk_contact_upsert', (db) =>
  db
    .insert(helpdeskContacts)
    .values({
      id: sql.placeholder('id'),
      siteId: sql.placeholder('siteId'),
      email: sql.placeholder('email'),
      name: sql.placeholder('name'),
    })
    .onConflictDoUpdate({
      target: [helpdeskContacts.siteId, helpdeskContacts.email],
      set: { name: sql`excluded.name` },
      setWhere: sql`${helpdeskContacts.name} is null and excluded.name is not null`,
    })
    .returning(),
);

const contactByEmail = preparedStatement('helpdesk_contact_by_email', (db) =>
  db
    .select()
    .from(helpdeskContacts)
    .where(
      and(eq(helpdeskContacts.siteId, sql.placeholder('siteId')), eq(helpdeskContacts.email, sql.placeholder('email'))),
    ),
);

/** The contact with this address, made on first sight; a name fills in a missing one. */
async function ensureContact(db: Executor, siteId: string, requester: RequesterInput): Promise<ContactRow> {
  const email = requester.email.trim().toLowerCase();
  if (!isEmail(email)) throw invalid(`"${email}" is not an e-mail address.`, 'requester.email');
  const name = requester.name?.trim() || null;
  const [written] = await contactUpsert(db, undefined).execute({ id: newId(), siteId, email, name });
  if (written) return written;
  const [onFile] = await contactByEmail(db, undefined).execute({ siteId, email });
  return onFile!;
}

/** The ticket whose thread holds one of these Message-IDs (the latest entry that does). */
export async function findTicketByMessageId(
  db: Executor,
  siteId: string,
  messageIds: readonly string[],
): Promise<TicketRow | undefined> {
  if (messageIds.length === 0) return undefined;
  const [row] = await db
    .select({ ticket: helpdeskTickets })
    .from(helpdeskEntries)
    .innerJoin(helpdeskTickets, eq(helpdeskTickets.id, helpdeskEntries.ticketId))
    .where(and(eq(helpdeskEntries.siteId, siteId), inArray(helpdeskEntries.messageId, [...messageIds])))
    .orderBy(desc(helpdeskEntries.createdAt))
    .limit(1);
  return row?.ticket;
}

/** The tickets whose threads hold these Message-IDs, the one with the latest such entry first. */
export async function ticketsByMessageIds(
  db: Executor,
  siteId: string,
  messageIds: readonly string[],
): Promise<TicketRow[]> {
  if (messageIds.length === 0) return [];
  const rows = await db
    .select({ ticket: helpdeskTickets })
    .from(helpdeskEntries)
    .innerJoin(helpdeskTickets, eq(helpdeskTickets.id, helpdeskEntries.ticketId))
    .where(and(eq(helpdeskEntries.siteId, siteId), inArray(helpdeskEntries.messageId, [...messageIds])))
    .orderBy(desc(helpdeskEntries.createdAt));
  const byId = new Map(rows.map(({ ticket }) => [ticket.id, ticket]));
  return [...byId.values()];
}

async function writeOnFile(db: Executor, siteId: string, messageId: string): Promise<TicketWrite | undefined> {
  const [row] = await db
    .select({ ticket: helpdeskTickets, entry: helpdeskEntries })
    .from(helpdeskEntries)
    .innerJoin(helpdeskTickets, eq(helpdeskTickets.id, helpdeskEntries.ticketId))
    .where(and(eq(helpdeskEntries.siteId, siteId), eq(helpdeskEntries.messageId, messageId)));
  return row ? { ...row, created: false } : undefined;
}

/**
 * A write that answers what is on file when its Message-ID already is: the entries' unique index
 * refuses a repeated delivery (a concurrent one too), so the common case costs no lookup first.
 */
async function idempotent(
  db: Executor,
  siteId: string,
  messageId: string | null | undefined,
  write: () => Promise<TicketWrite>,
): Promise<TicketWrite> {
  try {
    return await write();
  } catch (error) {
    if (messageId && isUniqueViolation(error, 'helpdesk_entries_message_key')) {
      const onFile = await writeOnFile(db, siteId, messageId);
      if (onFile) return onFile;
    }
    throw error;
  }
}

export async function insertEntry(
  db: Executor,
  ticket: TicketRow,
  values: {
    authorKind: ThreadEntryRow['authorKind'];
    authorId: string | null;
    internal: boolean;
    body: string;
    messageId: string | null;
    attachments: AttachmentRef[];
    mailText?: boolean | undefined;
  },
  rendered = renderBody(values.body, { lineBreaks: values.mailText }),
): Promise<ThreadEntryRow> {
  const [entry] = await db
    .insert(helpdeskEntries)
    .values({
      id: newId(),
      siteId: ticket.siteId,
      ticketId: ticket.id,
      authorKind: values.authorKind,
      authorId: values.authorId,
      internal: values.internal,
      bodySource: values.body,
      bodyHtml: rendered.html,
      bodyText: rendered.text,
      messageId: values.messageId,
      attachments: values.attachments,
    })
    .returning();
  return entry!;
}

/** A ticket to insert, checked and rendered; its requester and assignee come at the insert. */
interface NewTicket {
  ticket: Omit<NumberedTicket['ticket'], 'requesterId'>;
  entry: Omit<NumberedTicket['entry'], 'authorId'>;
  from: unknown;
}

/** Checks and renders a new ticket (a follow-up of `followUpOf`, or null) before anything is written. */
async function newTicket(
  db: Executor,
  siteId: string,
  input: OpenTicketInput,
  followUpOf: string | null,
): Promise<NewTicket> {
  const subject = input.subject.trim();
  if (subject.length === 0) throw invalid('The subject is empty.', 'subject');
  checkBody(input.body);
  const priority = input.priority ?? 'normal';
  const tags = normalizeTags(input.tags ?? []);
  const categoryId = input.categoryId ?? null;
  if (categoryId) await requireCategory(db, siteId, categoryId);
  const now = new Date();
  const rendered = renderBody(input.body, { lineBreaks: input.mailText });
  const clock = startClock(await slaTargets(db, siteId, priority), now);
  return {
    ticket: {
      subject,
      priority,
      categoryId,
      channel: input.channel,
      tags,
      followUpOf,
      createdAt: now,
      updatedAt: now,
      ...clock,
    },
    entry: {
      bodySource: input.body,
      bodyHtml: rendered.html,
      bodyText: rendered.text,
      messageId: input.messageId ?? null,
      attachments: input.attachments ?? [],
    },
    from: followUpOf ? { follow_up_of: followUpOf } : null,
  };
}

async function insertTicket(
  db: Executor,
  siteId: string,
  input: NewTicket,
  requester: ContactRow,
  actor: Actor,
): Promise<TicketWrite> {
  const { ticket, entry } = await insertAssigned(db, siteId, input.ticket.categoryId ?? null, (writer, assigneeId) =>
    insertNumberedTicket(writer, siteId, {
      ticket: { ...input.ticket, requesterId: requester.id },
      entry: { ...input.entry, authorId: requester.id },
      actor,
      from: input.from,
      assigneeId,
    }),
  );
  return { ticket, entry, created: true };
}

/** The ticket after an entry: its changes, and the entry's time as its last update. */
async function touchTicket(
  db: Executor,
  ticket: TicketRow,
  entry: ThreadEntryRow,
  change: Partial<TicketRow> = {},
): Promise<TicketRow> {
  const [updated] = await db
    .update(helpdeskTickets)
    .set({ ...change, updatedAt: entry.createdAt })
    .where(eq(helpdeskTickets.id, ticket.id))
    .returning();
  return updated!;
}

/**
 * Opens a ticket with its first entry (from the requester), numbered in turn, auto-assigned, its
 * SLA clock running. With a Message-ID already on file it answers that ticket, `created: false`.
 */
export async function openTicket(
  db: Executor,
  siteId: string,
  input: OpenTicketInput,
  actor: Actor = SYSTEM,
): Promise<TicketWrite> {
  const ticket = await newTicket(db, siteId, input, null);
  return idempotent(db, siteId, input.messageId, async () => {
    // The contact commits on its own (kept, as any contact, when the ticket loses a race), and the
    // ticket with it, so that its number's lock is held for one statement (numbered-insert.ts).
    const requester = await ensureContact(db, siteId, input.requester);
    return insertTicket(
      db,
      siteId,
      ticket,
      requester,
      actor.kind === 'system' ? { kind: 'requester', id: requester.id } : actor,
    );
  });
}

/**
 * Adds a reply or an internal note to a ticket. An agent's first public reply stamps the first
 * response; a requester's reply wakes a pending ticket, reopens a recently solved or closed one, and
 * on one closed longer ago than REOPEN_WINDOW_DAYS opens a follow-up ticket instead
 * (docs/decisions/0049-helpdesk-closed-replies.md). Idempotent on the Message-ID.
 */
export async function addEntry(db: Executor, ticket: TicketRow, input: EntryInput, actor: Actor): Promise<TicketWrite> {
  checkBody(input.body);
  const internal = input.internal ?? false;
  if (internal && input.author.kind !== 'agent') throw invalid('Only agents write internal notes.', 'internal');
  // On a transaction this is a savepoint: a lost race rolls back this write only.
  return idempotent(db, ticket.siteId, input.messageId, () =>
    db.transaction(async (tx) => {
      const [current] = await tx.select().from(helpdeskTickets).where(eq(helpdeskTickets.id, ticket.id)).for('update');
      if (!current) throw new AppError('ticket_not_found', `No ticket ${ticket.number}.`);
      const now = new Date();
      const values = {
        internal,
        body: input.body,
        messageId: input.messageId ?? null,
        attachments: input.attachments ?? [],
        mailText: input.mailText,
      };
      if (input.author.kind === 'agent') {
        const entry = await insertEntry(tx, current, {
          ...values,
          authorKind: 'agent',
          authorId: input.author.memberId,
        });
        const change: Partial<TicketRow> = {};
        if (!internal && current.firstResponseAt === null) change.firstResponseAt = entry.createdAt;
        if (!internal && current.status === 'new') Object.assign(change, statusChange(current, 'open', now));
        await recordHistory(tx, current, actor, internal ? 'note' : 'reply', null, { entry_id: entry.id });
        if (change.status) await recordHistory(tx, current, actor, 'status', current.status, change.status);
        return { ticket: await touchTicket(tx, current, entry, change), entry, created: true };
      }
      const author = input.author.email
        ? await ensureContact(tx, ticket.siteId, { email: input.author.email, name: input.author.name })
        : undefined;
      const authorId = author?.id ?? current.requesterId;
      // Mail names its sender only by address: the history names the contact it resolved to.
      const who: Actor = actor.kind === 'requester' && actor.id === null ? { kind: 'requester', id: authorId } : actor;
      if (input.automated) {
        const entry = await insertEntry(tx, current, { ...values, authorKind: 'requester', authorId });
        await recordHistory(tx, current, who, 'reply', null, { entry_id: entry.id, automated: input.automated });
        return { ticket: current, entry, created: true };
      }
      const done = current.status === 'solved' || current.status === 'closed';
      const doneAt = current.closedAt ?? current.solvedAt;
      if (done && doneAt && now.getTime() - doneAt.getTime() > REOPEN_WINDOW_DAYS * 86_400_000) {
        const requester =
          author ?? (await tx.select().from(helpdeskContacts).where(eq(helpdeskContacts.id, current.requesterId)))[0]!;
        const followUp = await insertTicket(
          tx,
          current.siteId,
          await newTicket(
            tx,
            current.siteId,
            {
              subject: current.subject,
              body: input.body,
              requester,
              channel: current.channel,
              priority: current.priority,
              categoryId: current.categoryId,
              tags: current.tags,
              messageId: values.messageId,
              attachments: values.attachments,
              mailText: values.mailText,
            },
            current.id,
          ),
          requester,
          who,
        );
        await recordHistory(tx, current, who, 'follow_up', null, {
          ticket_id: followUp.ticket.id,
          number: followUp.ticket.number,
        });
        return followUp;
      }
      const entry = await insertEntry(tx, current, { ...values, authorKind: 'requester', authorId });
      await recordHistory(tx, current, who, 'reply', null, { entry_id: entry.id });
      let change: Partial<TicketRow> = {};
      if (done || current.status === 'pending' || current.status === 'on_hold') {
        change = statusChange(current, 'open', now);
        await recordHistory(tx, current, who, done ? 'reopened' : 'status', current.status, 'open');
      }
      return { ticket: await touchTicket(tx, current, entry, change), entry, created: true };
    }),
  );
}

/**
 * Marks the agent's reply that went out with one of these Message-IDs as undelivered, in its
 * ticket's history (a bounce of it came back). Answers that ticket, or undefined when none matches.
 */
export async function markUndelivered(
  db: Executor,
  siteId: string,
  messageIds: readonly string[],
  report: Record<string, string>,
): Promise<TicketRow | undefined> {
  if (messageIds.length === 0) return undefined;
  const [row] = await db
    .select({ ticket: helpdeskTickets, entryId: helpdeskEntries.id })
    .from(helpdeskEntries)
    .innerJoin(helpdeskTickets, eq(helpdeskTickets.id, helpdeskEntries.ticketId))
    .where(
      and(
        eq(helpdeskEntries.siteId, siteId),
        inArray(helpdeskEntries.messageId, [...messageIds]),
        eq(helpdeskEntries.authorKind, 'agent'),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  await recordHistory(db, row.ticket, SYSTEM, 'undelivered', null, { entry_id: row.entryId, ...report });
  return row.ticket;
}

/**
 * Mail the sender filed on the site's help desk in the last minute (ticket openings and replies),
 * counted from the history, which every node writes: the sender throttle of inbound mail.
 */
export async function recentMailFrom(db: Executor, siteId: string, email: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(helpdeskHistory)
    .innerJoin(helpdeskContacts, eq(helpdeskContacts.id, helpdeskHistory.actorId))
    .where(
      and(
        eq(helpdeskHistory.siteId, siteId),
        sql`${helpdeskHistory.createdAt} > now() - interval '1 minute'`,
        inArray(helpdeskHistory.event, ['created', 'reply']),
        eq(helpdeskHistory.actorKind, 'requester'),
        eq(helpdeskContacts.siteId, siteId),
        eq(helpdeskContacts.email, email),
      ),
    );
  return row?.n ?? 0;
}

/** A ticket of the site by id or by number (`{id}` in the API is either). */
export async function findTicket(db: Executor, siteId: string, idOrNumber: string): Promise<TicketRow | undefined> {
  const byNumber = /^[0-9]{1,9}$/.test(idOrNumber);
  const [row] = await db
    .select()
    .from(helpdeskTickets)
    .where(
      and(
        eq(helpdeskTickets.siteId, siteId),
        byNumber ? eq(helpdeskTickets.number, Number(idOrNumber)) : eq(helpdeskTickets.id, idOrNumber),
      ),
    );
  return row;
}

/** The Message-IDs of a ticket's thread, oldest first: the References of an outgoing reply. */
export async function threadMessageIds(db: Executor, ticketId: string): Promise<string[]> {
  const rows = await db
    .select({ messageId: helpdeskEntries.messageId })
    .from(helpdeskEntries)
    .where(and(eq(helpdeskEntries.ticketId, ticketId), sql`${helpdeskEntries.messageId} is not null`))
    .orderBy(helpdeskEntries.createdAt, helpdeskEntries.id);
  return rows.map((row) => row.messageId!);
}

/** An entry of the ticket by id. */
export async function findEntry(db: Executor, ticketId: string, entryId: string): Promise<ThreadEntryRow | undefined> {
  const [row] = await db
    .select()
    .from(helpdeskEntries)
    .where(and(eq(helpdeskEntries.ticketId, ticketId), eq(helpdeskEntries.id, entryId)));
  return row;
}

/**
 * Whether mail from this address may speak on the ticket's thread: its requester, or a contact who
 * already wrote on it. Knowing a Message-ID of the thread is not enough.
 */
export async function isTicketParticipant(db: Executor, ticket: TicketRow, email: string): Promise<boolean> {
  const wrote = db
    .select({ one: sql`1` })
    .from(helpdeskEntries)
    .where(
      and(
        eq(helpdeskEntries.ticketId, ticket.id),
        eq(helpdeskEntries.authorKind, 'requester'),
        eq(helpdeskEntries.authorId, helpdeskContacts.id),
      ),
    );
  const [row] = await db
    .select({ id: helpdeskContacts.id })
    .from(helpdeskContacts)
    .where(
      and(
        eq(helpdeskContacts.siteId, ticket.siteId),
        eq(helpdeskContacts.email, email.trim().toLowerCase()),
        or(eq(helpdeskContacts.id, ticket.requesterId), exists(wrote)),
      ),
    )
    .limit(1);
  return row !== undefined;
}

export async function findContact(db: Executor, contactId: string): Promise<ContactRow | undefined> {
  const [row] = await db.select().from(helpdeskContacts).where(eq(helpdeskContacts.id, contactId));
  return row;
}

/** A page of a ticket's thread, oldest first; internal notes only when asked. */
export async function listEntries(
  db: Executor,
  ticketId: string,
  withInternal: boolean,
  page: { pageSize: number; offset: number },
): Promise<{ rows: ThreadEntryRow[]; total: number }> {
  const where = and(
    eq(helpdeskEntries.ticketId, ticketId),
    withInternal ? undefined : eq(helpdeskEntries.internal, false),
  );
  const [total] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(helpdeskEntries)
    .where(where);
  const rows = await db
    .select()
    .from(helpdeskEntries)
    .where(where)
    .orderBy(helpdeskEntries.createdAt, helpdeskEntries.id)
    .limit(page.pageSize)
    .offset(page.offset);
  return { rows, total: total?.n ?? 0 };
}
