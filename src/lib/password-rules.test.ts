import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCommonPassword, passwordProblem } from './password-rules.js';

describe('password rules', () => {
  it('refuses common passwords in any case, short and overlong ones, and accepts the rest', () => {
    for (const common of ['password123', 'Password123', 'qwertyuiop', '1234567890', 'iloveyou123'])
      assert.equal(isCommonPassword(common), true, common);
    assert.match(passwordProblem('1234567890') ?? '', /most common/);
    assert.match(passwordProblem('short') ?? '', /10 to 200 characters/);
    assert.match(passwordProblem('x'.repeat(201)) ?? '', /10 to 200 characters/);
    assert.equal(passwordProblem('correct horse battery staple'), undefined);
    assert.equal(passwordProblem('pw-alice-0123456789'), undefined);
  });
});
