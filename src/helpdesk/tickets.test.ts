// The help desk service on both databases: numbering (race-free on PostgreSQL), idempotence on
// Message-ID, threading lookups, round-robin assignment under capacity, reassignment, replies to
// solved and closed tickets, the SLA clock pausing while pending, and the append-only history.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createSite } from '../core/sites/service.js';
import { queryRows, type Database } from '../db/client.js';
import { createMember } from '../forum/members.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import { makeAgent, updateAgent } from './agents.js';
import { createCategory } from './categories.js';
import { ticketHistory } from './history.js';
import { slaView } from './sla.js';
import { helpdeskTickets } from './tables.js';
import {
  addEntry,
  findTicket,
  findTicketByMessageId,
  openTicket,
  REOPEN_WINDOW_DAYS,
  threadMessageIds,
} from './tickets.js';

const ADMIN = { kind: 'member', id: null } as const;

for (const database of testDatabases) {
  describe(`help desk service [${database}]`, () => {
    let testDb: TestDatabase;
    let db: Database;
    const agents: string[] = [];
    let billing = '';

    before(async () => {
      testDb = await createTestDatabase(database);
      db = testDb.handle.db;
      await createSite(db, null, { id: 'desk', kind: 'community', plan: 'pro' });
      await createSite(db, null, { id: 'other', kind: 'community', plan: 'pro' });
      billing = (await createCategory(db, 'desk', { name: 'Billing' })).id;
      for (const name of ['ann', 'bob', 'cat']) {
        const member = await createMember(db, 'desk', {
          username: name,
          email: `${name}@desk.test`,
          password: `pw-${name}-0123456789`,
          role: 'member',
        });
        agents.push(member.id);
      }
      await makeAgent(db, 'desk', agents[0]!, { capacity: 1, categoryIds: [billing] });
      await makeAgent(db, 'desk', agents[1]!, { capacity: 2, categoryIds: [billing] });
      await makeAgent(db, 'desk', agents[2]!, { capacity: 5, categoryIds: [] });
    });
    after(() => testDb.drop());

    const open = (subject: string, extra: Partial<Parameters<typeof openTicket>[2]> = {}) =>
      openTicket(db, 'desk', {
        subject,
        body: `About **${subject}**`,
        requester: { email: 'Req@Example.test', name: 'Req' },
        channel: 'email',
        ...extra,
      });

    it('numbers tickets per site in turn and renders the body sanitized', async () => {
      const first = await open('first', { body: 'Hello <script>alert(1)</script> **bold**' });
      const other = await openTicket(db, 'other', {
        subject: 'x',
        body: 'y',
        requester: { email: 'a@b.test' },
        channel: 'api',
      });
      const second = await open('second');
      assert.equal(second.ticket.number, first.ticket.number + 1);
      assert.equal(other.ticket.number, 1);
      assert.equal(first.entry.ticketId, first.ticket.id);
      assert.match(first.entry.bodyHtml, /<strong>bold<\/strong>/);
      assert.doesNotMatch(first.entry.bodyHtml, /<script>/);
      assert.equal((await findTicket(db, 'desk', String(second.ticket.number)))?.id, second.ticket.id);
      assert.equal(await findTicket(db, 'other', second.ticket.id), undefined);
    });

    it('answers a repeated Message-ID with the first ticket and writes nothing', async () => {
      const first = await open('dup', { messageId: '<m1@client.test>' });
      const again = await open('dup again', { messageId: '<m1@client.test>' });
      assert.equal(first.created, true);
      assert.equal(again.created, false);
      assert.equal(again.ticket.id, first.ticket.id);
      const reply = await addEntry(
        db,
        first.ticket,
        { body: 'more', author: { kind: 'requester' }, messageId: '<m2@client.test>' },
        { kind: 'requester', id: null },
      );
      const replyAgain = await addEntry(
        db,
        first.ticket,
        { body: 'more', author: { kind: 'requester' }, messageId: '<m2@client.test>' },
        { kind: 'requester', id: null },
      );
      assert.equal(replyAgain.created, false);
      assert.equal(replyAgain.entry.id, reply.entry.id);
      assert.equal((await findTicketByMessageId(db, 'desk', ['<nope@x>', '<m2@client.test>']))?.id, first.ticket.id);
      assert.equal(await findTicketByMessageId(db, 'other', ['<m2@client.test>']), undefined);
      assert.deepEqual(await threadMessageIds(db, first.ticket.id), ['<m1@client.test>', '<m2@client.test>']);
    });

    it('opens concurrent deliveries of one message once, and numbers concurrent tickets without gaps', async () => {
      const same = await Promise.all([1, 2, 3].map(() => open('race', { messageId: '<race@client.test>' })));
      assert.equal(new Set(same.map((w) => w.ticket.id)).size, 1);
      assert.equal(same.filter((w) => w.created).length, 1);
      const many = await Promise.all(Array.from({ length: 8 }, (_, i) => open(`parallel ${i}`)));
      const numbers = many.map((w) => w.ticket.number).sort((a, b) => a - b);
      assert.deepEqual(
        numbers,
        numbers.map((_, i) => numbers[0]! + i),
      );
    });

    it('numbers concurrent openings of a site with no free agent in shared statements, and answers each of a failed batch alone', async () => {
      // "other" has no agents: its openings commit on their own, batched while one runs (numbered-insert.ts).
      const openOther = (i: number, messageId: string) =>
        openTicket(db, 'other', {
          subject: `batched ${i}`,
          body: `Batch **${i}**`,
          requester: { email: `r${i}@example.test` },
          channel: 'email',
          messageId,
        });
      const numbersOf = (writes: Array<{ ticket: { number: number } }>) =>
        writes.map((w) => w.ticket.number).sort((a, b) => a - b);
      const together = await Promise.all(
        Array.from({ length: 12 }, (_, i) => openOther(i, `<batched-${i}@client.test>`)),
      );
      assert.deepEqual(
        numbersOf(together),
        numbersOf(together).map((_, i) => numbersOf(together)[0]! + i),
      );
      const ids = together.map((w) => w.ticket.id);
      const [counted] = await queryRows<{ statements: number }>(
        db,
        sql`select count(distinct xmin::text)::int as statements from helpdesk_tickets where id in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
      assert.ok(counted!.statements < 12, `12 openings took ${counted!.statements} statements`);
      for (const write of together) {
        const created = (await ticketHistory(db, write.ticket.id)).find((row) => row.event === 'created');
        assert.equal(
          (created?.toValue as { number: number }).number,
          write.ticket.number,
          "each ticket's history names its own number",
        );
        assert.equal(write.entry.ticketId, write.ticket.id);
        assert.match(write.entry.bodyHtml, new RegExp(`<strong>${write.ticket.subject.split(' ')[1]}</strong>`));
      }
      // One of the next openings repeats a Message-ID on file: its batch fails and each is filed alone.
      const again = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          openOther(100 + i, i === 5 ? '<batched-3@client.test>' : `<batched-${100 + i}@client.test>`),
        ),
      );
      assert.equal(again[5]!.created, false);
      assert.equal(again[5]!.ticket.id, together.find((w) => w.ticket.subject === 'batched 3')!.ticket.id);
      const fresh = again.filter((w) => w.created);
      assert.equal(fresh.length, 11);
      assert.deepEqual(
        numbersOf(fresh),
        numbersOf(fresh).map((_, i) => Math.max(...numbersOf(together)) + 1 + i),
        'no number is lost to the failed batch',
      );
    });

    it('assigns billing tickets round robin within capacity, then reassigns when an agent leaves', async () => {
      await db.update(helpdeskTickets).set({ status: 'solved' }).where(eq(helpdeskTickets.siteId, 'desk'));
      const made = [];
      for (const i of [1, 2, 3, 4]) made.push((await open(`bill ${i}`, { categoryId: billing })).ticket);
      assert.deepEqual(
        made.map((t) => t.assigneeId),
        [agents[0], agents[1], agents[1], null],
      );
      // The ticket, its history and its entry are one statement: the creation first, then the assignment.
      const opened = await ticketHistory(db, made[0]!.id);
      assert.deepEqual(
        opened.map((h) => [h.event, h.actorKind, h.fromValue, h.toValue]),
        [
          [
            'created',
            'requester',
            null,
            { number: made[0]!.number, channel: 'email', priority: 'normal', category_id: billing, tags: [] },
          ],
          ['assignee', 'system', null, agents[0]],
        ],
      );
      assert.deepEqual(
        (await ticketHistory(db, made[3]!.id)).map((h) => h.event),
        ['created'],
      );
      await updateAgent(db, 'desk', agents[1]!, { available: false }, ADMIN);
      const after1 = await findTicket(db, 'desk', made[1]!.id);
      const after2 = await findTicket(db, 'desk', made[2]!.id);
      // Ann is full (capacity 1): Bob's tickets have nowhere to go but unassigned.
      assert.equal(after1?.assigneeId, null);
      assert.equal(after2?.assigneeId, null);
      const history = await ticketHistory(db, made[1]!.id);
      assert.deepEqual(
        history.filter((h) => h.event === 'assignee').map((h) => [h.fromValue, h.toValue]),
        [
          [null, agents[1]],
          [agents[1], null],
        ],
      );
    });

    it('reopens a recently solved ticket on a requester reply, opens a follow-up for one closed long ago', async () => {
      const recent = (await open('recent')).ticket;
      await db
        .update(helpdeskTickets)
        .set({ status: 'solved', solvedAt: new Date() })
        .where(eq(helpdeskTickets.id, recent.id));
      const reopened = await addEntry(
        db,
        (await findTicket(db, 'desk', recent.id))!,
        { body: 'still broken', author: { kind: 'requester' } },
        { kind: 'requester', id: null },
      );
      assert.equal(reopened.ticket.id, recent.id);
      assert.equal(reopened.ticket.status, 'open');
      assert.equal(reopened.ticket.solvedAt, null);

      const old = (await open('old')).ticket;
      const longAgo = new Date(Date.now() - (REOPEN_WINDOW_DAYS + 1) * 86_400_000);
      await db
        .update(helpdeskTickets)
        .set({ status: 'closed', solvedAt: longAgo, closedAt: longAgo })
        .where(eq(helpdeskTickets.id, old.id));
      const followUp = await addEntry(
        db,
        (await findTicket(db, 'desk', old.id))!,
        { body: 'new trouble', author: { kind: 'requester' }, messageId: '<late@x>' },
        { kind: 'requester', id: null },
      );
      assert.notEqual(followUp.ticket.id, old.id);
      assert.equal(followUp.ticket.followUpOf, old.id);
      assert.equal((await findTicket(db, 'desk', old.id))?.status, 'closed');
      assert.ok((await ticketHistory(db, old.id)).some((h) => h.event === 'follow_up'));
    });

    it('stamps the first response on an agent reply, not on a note', async () => {
      const ticket = (await open('respond')).ticket;
      const note = await addEntry(
        db,
        ticket,
        { body: 'internal', internal: true, author: { kind: 'agent', memberId: agents[2]! } },
        { kind: 'member', id: agents[2]! },
      );
      assert.equal(note.ticket.firstResponseAt, null);
      const reply = await addEntry(
        db,
        ticket,
        { body: 'public', author: { kind: 'agent', memberId: agents[2]! } },
        { kind: 'member', id: agents[2]! },
      );
      assert.ok(reply.ticket.firstResponseAt);
      assert.equal(reply.ticket.status, 'open');
      await assert.rejects(
        addEntry(
          db,
          ticket,
          { body: 'x', internal: true, author: { kind: 'requester' } },
          { kind: 'requester', id: null },
        ),
        { code: 'invalid_ticket' },
      );
    });

    it('keeps the history append-only', async () => {
      const ticket = (await open('history')).ticket;
      await assert.rejects(
        db.execute(sql`update helpdesk_history set event = 'status' where ticket_id = ${ticket.id}`),
        (error: Error) => /append-only/.test(String(error.cause)),
      );
      assert.equal((await ticketHistory(db, ticket.id))[0]?.event, 'created');
    });

    it('sees a breach at the due time and none while paused', () => {
      const created = new Date('2026-01-01T00:00:00Z');
      const base = {
        createdAt: created,
        firstResponseAt: null,
        solvedAt: null,
        slaPausedAt: null,
        firstResponseMinutes: 60,
        resolutionMinutes: 240,
        firstResponseDueAt: new Date('2026-01-01T01:00:00Z'),
        resolutionDueAt: new Date('2026-01-01T04:00:00Z'),
      } as unknown as Parameters<typeof slaView>[0];
      assert.equal(slaView(base, new Date('2026-01-01T00:50:00Z')).at_risk, true);
      assert.equal(slaView(base, new Date('2026-01-01T01:01:00Z')).breached, true);
      const paused = { ...base, slaPausedAt: new Date('2026-01-01T00:30:00Z') };
      assert.equal(slaView(paused, new Date('2026-01-01T03:00:00Z')).breached, false);
    });
  });
}
