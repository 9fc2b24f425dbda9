// When a ticket's SLA flags may change: until `slaChangesAt`, `slaView` answers the same flags at
// every instant, over tickets with and without targets, running, paused, answered and solved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { slaChangesAt, slaView } from './sla.js';
import type { ListedTicketRow } from './tables.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-27T12:00:00Z');

function ticket(
  at: Partial<
    Record<'firstResponseDueAt' | 'resolutionDueAt' | 'firstResponseAt' | 'solvedAt' | 'slaPausedAt', number>
  >,
  minutes: [number | null, number | null],
): ListedTicketRow {
  const date = (ms: number | undefined) => (ms === undefined ? null : new Date(ms));
  return {
    firstResponseDueAt: date(at.firstResponseDueAt),
    resolutionDueAt: date(at.resolutionDueAt),
    firstResponseAt: date(at.firstResponseAt),
    solvedAt: date(at.solvedAt),
    slaPausedAt: date(at.slaPausedAt),
    firstResponseMinutes: minutes[0],
    resolutionMinutes: minutes[1],
  } as ListedTicketRow;
}

const flags = (row: ListedTicketRow, now: number) => {
  const { breached, at_risk } = slaView(row, new Date(now));
  return { breached, at_risk };
};

describe('SLA flag changes', () => {
  it('names the first instant the flags of a running clock change: at risk, then breached', () => {
    const row = ticket({ firstResponseDueAt: T0 + 60 * MINUTE, resolutionDueAt: T0 + 480 * MINUTE }, [60, 480]);
    const atRisk = slaChangesAt(row, new Date(T0));
    assert.equal(atRisk, T0 + 45 * MINUTE + 1);
    assert.deepEqual(flags(row, atRisk - 1), { breached: false, at_risk: false });
    assert.deepEqual(flags(row, atRisk), { breached: false, at_risk: true });
    const breached = slaChangesAt(row, new Date(atRisk));
    assert.equal(breached, T0 + 60 * MINUTE + 1);
    assert.deepEqual(flags(row, breached - 1), { breached: false, at_risk: true });
    assert.deepEqual(flags(row, breached), { breached: true, at_risk: false });
  });

  it('holds the flags until then for every kind of ticket', () => {
    const rows = [
      ticket({}, [null, null]),
      ticket({ firstResponseDueAt: T0 + 7 * MINUTE, resolutionDueAt: T0 + 30 * MINUTE }, [10, 30]),
      ticket(
        { firstResponseDueAt: T0 - MINUTE, resolutionDueAt: T0 + 9 * MINUTE, firstResponseAt: T0 - 2 * MINUTE },
        [5, 20],
      ),
      ticket(
        { firstResponseDueAt: T0 + 3 * MINUTE, resolutionDueAt: T0 + 13 * MINUTE, slaPausedAt: T0 - MINUTE },
        [4, 16],
      ),
      ticket(
        {
          firstResponseDueAt: T0 + 3 * MINUTE,
          resolutionDueAt: T0 + 5 * MINUTE,
          solvedAt: T0 - MINUTE,
          firstResponseAt: T0 - 2 * MINUTE,
        },
        [4, 8],
      ),
      ticket({ resolutionDueAt: T0 + 2 * MINUTE }, [null, 7]),
    ];
    for (const row of rows) {
      for (let now = T0 - 5 * MINUTE; now < T0 + 40 * MINUTE; now += 7_919) {
        const until = slaChangesAt(row, new Date(now));
        assert.ok(until > now);
        const seen = flags(row, now);
        for (const at of [
          now + 1,
          Math.min(until - 1, now + 60 * MINUTE),
          now + Math.floor((Math.min(until, now + 60 * MINUTE) - now) / 2),
        ]) {
          assert.deepEqual(flags(row, at), seen, `flags at ${at - T0} ms, kept from ${now - T0} until ${until - T0}`);
        }
      }
    }
  });
});
