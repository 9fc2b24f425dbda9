// AI draft replies (`POST /tickets/{id}/draft-reply`): the site owner's provider (the same AI
// settings as the Content API, off by default) reads the thread — internal notes only when asked —
// and answers a reply, stored on the ticket for an agent to edit and send. Blume never sends it.
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AiProviderError, createAiClient, type AiClient, type AiSettings } from '../adapters/ai/index.js';
import { AppError } from '../http/errors.js';
import { newId } from '../lib/ids.js';
import { recordHistory, type Actor } from './history.js';
import { helpdeskDrafts, type ContactRow, type DraftRow, type TicketRow } from './tables.js';
import { listEntries } from './tickets.js';

interface DraftInput {
  /** Let the model read internal notes too. */
  internal?: boolean | undefined;
  /** What the agent wants the reply to say or do. */
  instructions?: string | undefined;
}

const SYSTEM = [
  "You are a support agent drafting a reply to a customer's help desk ticket.",
  'Answer with the reply only, in Markdown: no subject line, no preamble, no placeholders for facts you do not know.',
  'Be brief, friendly and concrete. Never reveal internal notes to the customer; use them only as background.',
].join('\n');

async function threadText(
  db: Executor,
  ticket: TicketRow,
  requester: ContactRow,
  withInternal: boolean,
): Promise<string> {
  const { rows } = await listEntries(db, ticket.id, withInternal, { pageSize: 200, offset: 0 });
  const lines = [`Ticket #${ticket.number}: ${ticket.subject}`, `Requester: ${requester.name ?? requester.email}`, ''];
  for (const entry of rows) {
    const who = entry.authorKind === 'requester' ? 'Customer' : entry.internal ? 'Agent (internal note)' : 'Agent';
    lines.push(`--- ${who}, ${entry.createdAt.toISOString()}`, entry.bodyText, '');
  }
  return lines.join('\n');
}

export async function draftReply(
  db: Executor,
  ticket: TicketRow,
  requester: ContactRow,
  ai: AiSettings,
  input: DraftInput,
  actor: Actor,
  clientFor: (settings: AiSettings) => AiClient = createAiClient,
): Promise<DraftRow> {
  const thread = await threadText(db, ticket, requester, input.internal ?? false);
  const prompt = input.instructions ? `${thread}\nWhat the reply should do: ${input.instructions}` : thread;
  let result;
  try {
    result = await clientFor(ai).complete({ system: SYSTEM, prompt });
  } catch (error) {
    if (error instanceof AiProviderError) throw new AppError(error.code, error.message, error.extensions);
    throw error;
  }
  const body = result.text.trim();
  if (body.length === 0) throw new AppError('ai_invalid_output', 'The model answered an empty reply.');
  return db.transaction(async (tx) => {
    const [draft] = await tx
      .insert(helpdeskDrafts)
      .values({
        id: newId(),
        siteId: ticket.siteId,
        ticketId: ticket.id,
        body,
        model: result.model,
        createdBy: actor.id,
      })
      .returning();
    await recordHistory(tx, ticket, actor, 'draft', null, { draft_id: draft!.id, model: result.model });
    return draft!;
  });
}

/** A stored draft of this ticket, for an agent to edit and send. */
export async function findDraft(db: Executor, ticketId: string, draftId: string): Promise<DraftRow | undefined> {
  const [row] = await db
    .select()
    .from(helpdeskDrafts)
    .where(and(eq(helpdeskDrafts.ticketId, ticketId), eq(helpdeskDrafts.id, draftId)));
  return row;
}
