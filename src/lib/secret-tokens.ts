// `<id>.<secret>` tokens whose secret is stored only as a SHA-256 hash and compared in constant
// time: sessions of accounts and of forum members, every credential type, and mailed links. The
// secret has 256 bits of entropy, so a fast hash is enough.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { newId } from './ids.js';

/**
 * How long the single-use links mailed to people live: a welcome (confirm an address, accept an
 * invitation) for a week; a password reset for an hour, as it is as good as the password while it lives.
 */
export const LINK_TTL_MS = { welcome: 7 * 24 * 3600 * 1000, reset: 3600 * 1000 } as const;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

interface NewSecretToken {
  id: string;
  secret: string;
  /** What to store. */
  secretHash: string;
  /** What to hand out: `<id>.<secret>`. */
  token: string;
}

export function newSecretToken(): NewSecretToken {
  const id = newId();
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, secretHash: hashSecret(secret), token: `${id}.${secret}` };
}

/** Splits `<id>.<secret>`; undefined when the text cannot be one of ours. */
export function parseSecretToken(text: string): { id: string; secret: string } | undefined {
  const [id, secret, extra] = text.split('.');
  if (!id || !secret || extra !== undefined || !/^[0-9a-z]{16}$/.test(id)) return undefined;
  return { id, secret };
}

/** Whether `secret` hashes to `storedHash`, in constant time. */
export function secretMatches(storedHash: string, secret: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(hashSecret(secret), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
