// Every credential type: `<prefix><id>.<secret>`. The secret is 32 random bytes; only its SHA-256
// is stored (the secret has full entropy, so a slow hash adds nothing) and compared in constant time.
// The token is returned once, at minting. Revocation is a row update, checked on every request.
import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { credentialPrefixes, parseCredential, type CredentialKind } from '../../lib/credential-format.js';
import { newId } from '../../lib/ids.js';
import { hashSecret, secretMatches } from '../../lib/secret-tokens.js';
import { credentials, type CredentialRow } from './tables.js';

export {
  credentialPrefixes,
  parseCredential,
  type CredentialKind,
  type ParsedCredential,
} from '../../lib/credential-format.js';

/** Only write `last_used_at` when it is older than this, so hot credentials do not write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

interface MintInput {
  kind: CredentialKind;
  name: string;
  siteId?: string | null;
  subjectId?: string | null;
  scopes?: string[];
}

export interface Minted {
  row: CredentialRow;
  /** The full credential; shown to the user once and never stored. */
  token: string;
}

export async function mintCredential(db: Executor, input: MintInput): Promise<Minted> {
  const id = newId(16);
  const secret = randomBytes(32).toString('base64url');
  const [row] = await db
    .insert(credentials)
    .values({
      id,
      kind: input.kind,
      name: input.name,
      siteId: input.siteId ?? null,
      subjectId: input.subjectId ?? null,
      scopes: input.scopes ?? [],
      secretHash: hashSecret(secret),
    })
    .returning();
  return { row: row!, token: `${credentialPrefixes[input.kind]}${id}.${secret}` };
}

/** The live credential row the presented token proves, or undefined (wrong, revoked, other kind). */
export async function verifyCredential(
  db: Executor,
  presented: string,
  kind: CredentialKind,
): Promise<CredentialRow | undefined> {
  const parsed = parseCredential(presented);
  if (!parsed || parsed.kind !== kind) return undefined;
  const row = await findLiveCredential(db, parsed.id, kind);
  return row && (await acceptSecret(db, row, parsed.secret)) ? row : undefined;
}

/** The live (not revoked) credential row of `kind` with this id, or undefined; it proves nothing yet. */
export async function findLiveCredential(
  db: Executor,
  id: string,
  kind: CredentialKind,
): Promise<CredentialRow | undefined> {
  const [row] = await db
    .select()
    .from(credentials)
    .where(and(eq(credentials.id, id), eq(credentials.kind, kind), isNull(credentials.revokedAt)));
  return row;
}

/**
 * Whether the presented secret is the one of a live row the caller read (alone, or joined with what
 * it acts as); notes the use, at most once a minute.
 */
export async function acceptSecret(
  db: Executor,
  row: Pick<CredentialRow, 'id' | 'secretHash' | 'lastUsedAt'>,
  secret: string,
): Promise<boolean> {
  if (!secretMatches(row.secretHash, secret)) return false;
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    await db
      .update(credentials)
      .set({ lastUsedAt: now })
      .where(and(eq(credentials.id, row.id), or(isNull(credentials.lastUsedAt), lt(credentials.lastUsedAt, stale))));
    row.lastUsedAt = now;
  }
  return true;
}

export interface CredentialFilter {
  kind: CredentialKind;
  siteId?: string;
  subjectId?: string;
}

function filterWhere(filter: CredentialFilter) {
  return and(
    eq(credentials.kind, filter.kind),
    isNull(credentials.revokedAt),
    filter.siteId !== undefined ? eq(credentials.siteId, filter.siteId) : undefined,
    filter.subjectId !== undefined ? eq(credentials.subjectId, filter.subjectId) : undefined,
  );
}

export async function listCredentials(db: Executor, filter: CredentialFilter): Promise<CredentialRow[]> {
  return db
    .select()
    .from(credentials)
    .where(filterWhere(filter))
    .orderBy(desc(credentials.createdAt), desc(credentials.id));
}

/** Revokes one live credential matching the filter; answers whether one was revoked. */
export async function revokeCredential(db: Executor, id: string, filter: CredentialFilter): Promise<boolean> {
  const revoked = await db
    .update(credentials)
    .set({ revokedAt: new Date() })
    .where(and(eq(credentials.id, id), filterWhere(filter)))
    .returning({ id: credentials.id });
  return revoked.length > 0;
}
