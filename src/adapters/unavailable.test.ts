// Which errors read as an outage of a dependency (decision 0070), and which stay bugs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DependencyUnavailable, unavailableDependency } from './unavailable.js';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('unavailableDependency', () => {
  it('names the blob store when its adapter says so, at any depth of causes', () => {
    const outage = new DependencyUnavailable('blob_store', withCode('connect ECONNREFUSED', 'ECONNREFUSED'));
    assert.equal(unavailableDependency(outage), 'blob_store');
    assert.equal(unavailableDependency(new Error('ingest failed', { cause: outage })), 'blob_store');
  });

  it('names the database for refused, broken and shut-down connections', () => {
    assert.equal(unavailableDependency(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')), 'database');
    assert.equal(
      unavailableDependency(new Error('Failed query', { cause: new Error('Connection terminated unexpectedly') })),
      'database',
    );
    assert.equal(unavailableDependency(new Error('timeout exceeded when trying to connect')), 'database');
    assert.equal(
      unavailableDependency(withCode('terminating connection due to administrator command', '57P01')),
      'database',
    );
    assert.equal(unavailableDependency(withCode('connection failure', '08006')), 'database');
  });

  it('leaves other errors alone', () => {
    assert.equal(unavailableDependency(withCode('duplicate key value', '23505')), undefined);
    assert.equal(unavailableDependency(new TypeError('x is undefined')), undefined);
    assert.equal(unavailableDependency('not an error'), undefined);
  });
});
