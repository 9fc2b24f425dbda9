// Named waitlists: an e-mail joins the list of a caller-chosen `service_key` once; joining again
// changes nothing and answers the same, so the endpoint reveals nothing about who is on a list.
import { and, asc, count, eq, sql } from 'drizzle-orm';
import { isEmail } from '../lib/email.js';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import type { Page } from '../http/pagination.js';
import { newId } from '../lib/ids.js';
import { waitlistEntries, type WaitlistEntryRow } from './tables.js';

/** Trims and lower-cases the domain part (the local part is the mailbox owner's business). */
function normalizeEmail(email: string): string {
  const trimmed = email.trim();
  const at = trimmed.lastIndexOf('@');
  return at < 0 ? trimmed : trimmed.slice(0, at) + trimmed.slice(at).toLowerCase();
}

export async function joinWaitlist(
  db: Executor,
  siteId: string,
  serviceKey: string,
  rawEmail: string,
): Promise<{ email: string; created: boolean }> {
  const email = normalizeEmail(rawEmail);
  if (!isEmail(email)) throw new AppError('invalid_email', `"${rawEmail.slice(0, 100)}" is not an e-mail address.`);
  const inserted = await db
    .insert(waitlistEntries)
    .values({ id: newId(), siteId, serviceKey, email })
    .onConflictDoNothing()
    .returning({ id: waitlistEntries.id });
  return { email, created: inserted.length > 0 };
}

function filterWhere(siteId: string, serviceKey: string | undefined) {
  return and(
    eq(waitlistEntries.siteId, siteId),
    serviceKey !== undefined ? eq(waitlistEntries.serviceKey, serviceKey) : undefined,
  );
}

export async function listWaitlist(
  db: Executor,
  siteId: string,
  serviceKey: string | undefined,
  page: Page,
): Promise<{ rows: WaitlistEntryRow[]; total: number }> {
  const where = filterWhere(siteId, serviceKey);
  const [total] = await db.select({ n: count() }).from(waitlistEntries).where(where);
  const rows = await db
    .select()
    .from(waitlistEntries)
    .where(where)
    .orderBy(asc(waitlistEntries.createdAt), asc(waitlistEntries.id))
    .limit(page.pageSize)
    .offset(page.offset);
  return { rows, total: total?.n ?? 0 };
}

/** One CSV field. Leading formula characters are defused so spreadsheets do not run them. */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export async function exportWaitlistCsv(db: Executor, siteId: string, serviceKey: string | undefined): Promise<string> {
  const rows = await db
    .select()
    .from(waitlistEntries)
    .where(filterWhere(siteId, serviceKey))
    .orderBy(
      asc(waitlistEntries.serviceKey),
      asc(waitlistEntries.createdAt),
      asc(sql`lower(${waitlistEntries.email})`),
    );
  const lines = [
    'service_key,email,created_at',
    ...rows.map((row) => [row.serviceKey, row.email, row.createdAt.toISOString()].map(csvField).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
