// Mailgun signs `timestamp + token`, not the message: a captured signature verifies with any content
// for as long as its timestamp is fresh. Each token carries one request body per site, kept in the
// database so that every node agrees: the same body again is Mailgun retrying (and files nothing
// twice, by its Message-ID); another body is a replay. Tokens are forgotten once their signatures
// are refused as stale anyway.
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { helpdeskInboundTokens as tokens } from './tables.js';

/** False when the site saw this token within the window with another body: a replay. */
export async function takeSignatureToken(
  db: Executor,
  siteId: string,
  token: string,
  bodyDigest: string,
  windowSeconds: number,
): Promise<boolean> {
  // Twice the window, so that no clock skew between nodes forgets a token still fresh somewhere.
  await db
    .delete(tokens)
    .where(
      and(eq(tokens.siteId, siteId), lt(tokens.receivedAt, sql`now() - make_interval(secs => ${2 * windowSeconds})`)),
    );
  const taken = await db
    .insert(tokens)
    .values({ siteId, token, bodyDigest })
    .onConflictDoNothing()
    .returning({ token: tokens.token });
  if (taken.length === 1) return true;
  const [first] = await db
    .select({ bodyDigest: tokens.bodyDigest })
    .from(tokens)
    .where(and(eq(tokens.siteId, siteId), eq(tokens.token, token)));
  return first?.bodyDigest === bodyDigest;
}
