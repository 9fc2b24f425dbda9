// Secrets Blume must read back in plain text (webhook signing secrets: HMAC verification needs the
// key itself, so a hash will not do), sealed with AES-256-GCM under a key derived from SECRET_KEY.
// Each purpose gets its own derived key, so a value sealed for one use cannot be opened for another.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

/** Derived keys by purpose and SECRET_KEY: a few purposes, one key (two while it is rotated). */
const derived = new Map<string, Buffer>();

function deriveKey(secretKey: string, purpose: string): Buffer {
  const name = `${purpose}\0${secretKey}`;
  let key = derived.get(name);
  if (!key) derived.set(name, (key = Buffer.from(hkdfSync('sha256', secretKey, 'blume-secrets', purpose, 32))));
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function sealSecret(plaintext: string, secretKey: string, purpose: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secretKey, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    VERSION,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.');
}

/** The plain text, or throws when the value was tampered with or sealed under another key. */
export function openSecret(sealed: string, secretKey: string, purpose: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || body === undefined)
    throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(secretKey, purpose), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
