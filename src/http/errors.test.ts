import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, errorCodes, errorTables, isErrorCode, lookupErrorCode } from './errors.js';

describe('error codes', () => {
  it('declares each code in exactly one table, with a client or server status and a title', () => {
    const owners = new Map<string, string[]>();
    for (const [table, codes] of Object.entries(errorTables)) {
      for (const code of Object.keys(codes)) owners.set(code, [...(owners.get(code) ?? []), table]);
    }
    const twice = [...owners].filter(([, tables]) => tables.length > 1);
    assert.deepEqual(twice, [], 'a code declared by two tables would keep only the last one');
    assert.equal(Object.keys(errorCodes).length, owners.size);
    for (const [code, entry] of Object.entries(errorCodes)) {
      assert.match(code, /^[a-z][a-z0-9_]*$/, code);
      assert.ok(entry.status >= 400 && entry.status < 600, code);
      assert.ok(entry.title.length > 0, code);
    }
  });

  it("knows every domain's codes without importing the domain", () => {
    assert.equal(new AppError('build_not_found').status, 404);
    assert.equal(new AppError('topic_locked').status, 403);
    assert.equal(new AppError('unknown_setting', 'Not allowed: X.').message, 'Not allowed: X.');
  });

  it('compiles only known codes; a string from outside reads as an internal error', () => {
    // @ts-expect-error: a code that is in no table does not compile.
    assert.throws(() => new AppError('typo'));
    assert.equal(isErrorCode('typo'), false);
    assert.equal(lookupErrorCode('typo').status, 500);
  });
});
