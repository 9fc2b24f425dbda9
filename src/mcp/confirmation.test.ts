// Confirmation ids hold for one action, one production state and ten minutes, on a clock the test moves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Confirmations, type ConfirmedAction } from './confirmation.js';

const promote: ConfirmedAction = {
  tool: 'deploy_promote',
  site: 'hello',
  arguments: { release: 'abcdefabcdef', force: undefined },
  state: { live: '123456123456' },
};

describe('Confirmations', () => {
  it('holds for the action it was issued for, until it expires', () => {
    let now = Date.UTC(2026, 10, 28, 12);
    const confirmations = new Confirmations('key', () => now);
    const { id, expiresAt } = confirmations.issue(promote);
    assert.equal(expiresAt.getTime(), now + 600_000);
    assert.equal(confirmations.check(promote, id), 'valid');
    // The confirming call's own confirm, id and idempotency key are not part of the action.
    assert.equal(
      confirmations.check({ ...promote, arguments: { ...promote.arguments, confirm: true, confirmation_id: id } }, id),
      'valid',
    );
    now += 599_000;
    assert.equal(confirmations.check(promote, id), 'valid');
    now += 1_000;
    assert.equal(confirmations.check(promote, id), 'expired');
  });

  it('does not hold for another release, site, tool, state or key, nor for a forged id', () => {
    const confirmations = new Confirmations('key');
    const { id } = confirmations.issue(promote);
    for (const other of [
      { ...promote, arguments: { release: 'ffffffffffff' } },
      { ...promote, arguments: { ...promote.arguments, force: true } },
      { ...promote, site: 'other' },
      { ...promote, tool: 'deploy_rollback' },
      { ...promote, state: { live: 'abcdefabcdef' } },
    ])
      assert.equal(confirmations.check(other, id), 'other', JSON.stringify(other));
    assert.equal(new Confirmations('another key').check(promote, id), 'other');
    const [prefix, expires] = id.split('_');
    assert.equal(confirmations.check(promote, `${prefix}_${expires}_${'A'.repeat(32)}`), 'other');
    assert.equal(confirmations.check(promote, 'cf_nonsense'), 'other');
  });
});
