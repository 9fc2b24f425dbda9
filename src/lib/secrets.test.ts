import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openSecret, sealSecret } from './secrets.js';

const KEY = 'a-secret-key-of-at-least-thirty-two-characters';

describe('sealed secrets', () => {
  it('round-trips, and never seals the same text to the same value', () => {
    const a = sealSecret('hook-secret', KEY, 'webhook');
    const b = sealSecret('hook-secret', KEY, 'webhook');
    assert.notEqual(a, b);
    assert.ok(!a.includes('hook-secret'));
    assert.equal(openSecret(a, KEY, 'webhook'), 'hook-secret');
  });

  it('refuses another key, another purpose and tampering', () => {
    const sealed = sealSecret('hook-secret', KEY, 'webhook');
    assert.throws(() => openSecret(sealed, `${KEY}-other`, 'webhook'));
    assert.throws(() => openSecret(sealed, KEY, 'other-purpose'));
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    assert.throws(() =>
      openSecret([parts[0], parts[1], parts[2], body.toString('base64url')].join('.'), KEY, 'webhook'),
    );
    assert.throws(() => openSecret('garbage', KEY, 'webhook'));
  });
});
