// Canned replies: the desk's snippet library, Markdown an agent puts into the reply box of a ticket
// and edits before sending. Placeholders in double braces are filled for the ticket at hand when the
// snippet is inserted: {{requester.name}}, {{requester.email}}, {{ticket.number}},
// {{ticket.subject}}, {{agent.name}}. One a snippet names that is not among them is refused when
// the snippet is saved, so a typo never reaches a customer.
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { memberNames } from '../forum/members.js';
import { newId } from '../lib/ids.js';
import { isUniqueViolation } from './categories.js';
import type { HelpdeskCaller } from './policy.js';
import { helpdeskCannedReplies, type CannedReplyRow, type ContactRow, type TicketRow } from './tables.js';

export const PLACEHOLDERS = [
  'requester.name',
  'requester.email',
  'ticket.number',
  'ticket.subject',
  'agent.name',
] as const;
type Placeholder = (typeof PLACEHOLDERS)[number];

const PLACEHOLDER = /\{\{\s*([a-z.]+)\s*\}\}/g;

interface CannedReplyInput {
  name?: string | undefined;
  body?: string | undefined;
}

function checkPlaceholders(body: string): void {
  const unknown = [...body.matchAll(PLACEHOLDER)]
    .map((match) => match[1]!)
    .filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new AppError(
      'invalid_canned_reply',
      `Unknown placeholder {{${unknown[0]}}}: use ${PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ')}.`,
      { errors: [{ field: 'body', message: `unknown placeholder {{${unknown[0]}}}` }] },
    );
}

function checkInput(input: CannedReplyInput): void {
  if (input.name !== undefined && input.name.trim() === '')
    throw new AppError('invalid_canned_reply', 'Give the canned reply a name.', {
      errors: [{ field: 'name', message: 'empty' }],
    });
  if (input.body !== undefined) {
    if (input.body.trim() === '')
      throw new AppError('invalid_canned_reply', 'Write the text of the canned reply.', {
        errors: [{ field: 'body', message: 'empty' }],
      });
    checkPlaceholders(input.body);
  }
}

async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError('canned_reply_exists', `A canned reply named "${name}" exists.`);
    throw error;
  }
}

export function listCannedReplies(db: Executor, siteId: string): Promise<CannedReplyRow[]> {
  return db
    .select()
    .from(helpdeskCannedReplies)
    .where(eq(helpdeskCannedReplies.siteId, siteId))
    .orderBy(asc(sql`lower(${helpdeskCannedReplies.name})`), asc(helpdeskCannedReplies.id));
}

export async function getCannedReply(db: Executor, siteId: string, id: string): Promise<CannedReplyRow> {
  const [row] = await db
    .select()
    .from(helpdeskCannedReplies)
    .where(and(eq(helpdeskCannedReplies.siteId, siteId), eq(helpdeskCannedReplies.id, id)));
  if (!row) throw new AppError('canned_reply_not_found', `No canned reply "${id}".`);
  return row;
}

export function createCannedReply(
  db: Executor,
  siteId: string,
  input: { name: string; body: string },
): Promise<CannedReplyRow> {
  checkInput(input);
  const name = input.name.trim();
  return uniqueName(name, async () => {
    const [row] = await db
      .insert(helpdeskCannedReplies)
      .values({ id: newId(), siteId, name, body: input.body })
      .returning();
    return row!;
  });
}

export async function updateCannedReply(
  db: Executor,
  siteId: string,
  id: string,
  input: CannedReplyInput,
): Promise<CannedReplyRow> {
  checkInput(input);
  await getCannedReply(db, siteId, id);
  const name = input.name?.trim();
  return uniqueName(name, async () => {
    const [row] = await db
      .update(helpdeskCannedReplies)
      .set({
        ...(name !== undefined ? { name } : {}),
        ...(input.body !== undefined ? { body: input.body } : {}),
        updatedAt: sql`now()`,
      })
      .where(and(eq(helpdeskCannedReplies.siteId, siteId), eq(helpdeskCannedReplies.id, id)))
      .returning();
    return row!;
  });
}

export async function deleteCannedReply(db: Executor, siteId: string, id: string): Promise<void> {
  await getCannedReply(db, siteId, id);
  await db
    .delete(helpdeskCannedReplies)
    .where(and(eq(helpdeskCannedReplies.siteId, siteId), eq(helpdeskCannedReplies.id, id)));
}

/**
 * The snippet's text for a ticket: its placeholders filled with the requester's name (their address
 * when they gave none), the ticket's number and subject and the agent's name.
 */
export function fillCannedReply(
  body: string,
  context: {
    ticket: Pick<TicketRow, 'number' | 'subject'>;
    requester: Pick<ContactRow, 'name' | 'email'>;
    agentName: string;
  },
): string {
  const values: Record<Placeholder, string> = {
    'requester.name': context.requester.name ?? context.requester.email,
    'requester.email': context.requester.email,
    'ticket.number': String(context.ticket.number),
    'ticket.subject': context.ticket.subject,
    'agent.name': context.agentName,
  };
  return body.replace(PLACEHOLDER, (whole, name: string) => values[name as Placeholder] ?? whole);
}

/** The name {{agent.name}} stands for: the member's username, or `team` for an API key or the owner. */
export async function agentNameOf(db: Executor, siteId: string, caller: HelpdeskCaller, team: string): Promise<string> {
  if (caller.kind !== 'member') return team;
  return (await memberNames(db, siteId, [caller.id])).get(caller.id) ?? team;
}
