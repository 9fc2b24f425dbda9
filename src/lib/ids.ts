import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Random lowercase alphanumerics, unbiased (rejection sampling over bytes). */
export function randomAlnum(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 252) out += ALPHABET[byte % 36];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * A time-sortable id: 8 base36 characters of milliseconds since the epoch (enough until 2059),
 * then random characters. Ids made later sort after ids made earlier.
 */
export function newId(length = 16): string {
  const time = Date.now().toString(36).padStart(8, '0');
  return time + randomAlnum(length - 8);
}

/**
 * Request ids: a random per-process prefix and a counter. They only correlate log lines and error
 * reports, so they need to be unique, not unguessable; a counter keeps the randomness source off
 * the path of every request (it was ~5% of a static edge request).
 */
export function requestIdFactory(): () => string {
  const prefix = randomAlnum(8);
  let counter = 0;
  return () => {
    counter += 1;
    return `${prefix}${counter.toString(36).padStart(12, '0')}`;
  };
}
