import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig, variables } from './index.js';

describe('configuration', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'blume-config-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('has working defaults and generates a secret key once', () => {
    const first = loadConfig({ BLUME_DATA_DIR: dir });
    assert.deepEqual(first.bind, { host: '127.0.0.1', port: 8080 });
    assert.equal(first.publicUrl.origin, 'http://localhost:8080');
    assert.equal(first.sitesDomain, 'localhost');
    assert.equal(first.databaseUrl, undefined);
    assert.equal(first.redis.enabled, false);
    assert.equal(first.autoMigrate, true);
    assert.equal(first.logLevel, 'info');
    assert.equal(first.edgeFastPath, true, 'the static fast path is on by default, whatever the log level');
    assert.equal(loadConfig({ BLUME_DATA_DIR: dir, BLUME_EDGE_FAST_PATH: 'False' }).edgeFastPath, false);
    assert.equal(first.cacheAnswers, true, 'answers are kept per node by default');
    assert.equal(loadConfig({ BLUME_DATA_DIR: dir, BLUME_CACHE_ANSWERS: 'off' }).cacheAnswers, false);
    assert.ok(first.secretKey.length >= 32);
    assert.equal(loadConfig({ BLUME_DATA_DIR: dir }).secretKey, first.secretKey);
    assert.ok(Object.isFrozen(first));
  });

  it('accepts GUNICORN_BIND and the spec spellings of booleans', () => {
    const config = loadConfig({
      BLUME_DATA_DIR: dir,
      GUNICORN_BIND: '0.0.0.0:9000',
      BLUME_REDIS_ENABLED: 'True',
      BLUME_AUTO_MIGRATE: 'False',
    });
    assert.deepEqual(config.bind, { host: '0.0.0.0', port: 9000 });
    assert.equal(config.redis.enabled, true);
    assert.equal(config.autoMigrate, false);
    assert.deepEqual(loadConfig({ BLUME_DATA_DIR: dir, BLUME_BIND: '[::1]:81' }).bind, { host: '::1', port: 81 });
  });

  it('lists every problem at once', () => {
    try {
      loadConfig({
        BLUME_DATA_DIR: dir,
        BLUME_BIND: 'x',
        BLUME_PUBLIC_URL: 'ftp://a',
        DATABASE_URL: 'mysql://x',
        BLUME_MAIL_PORT: '99999',
        BLUME_BLOBS: 's3',
      });
      assert.fail('expected a ConfigError');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 5);
      assert.match(error.message, /BLUME_S3_BUCKET is required/);
    }
  });

  it('reads the installation mode: platform by default, single when asked, nothing else', () => {
    assert.equal(loadConfig({ BLUME_DATA_DIR: dir }).mode, 'platform');
    assert.equal(loadConfig({ BLUME_DATA_DIR: dir, BLUME_MODE: 'single' }).mode, 'single');
    assert.throws(
      () => loadConfig({ BLUME_DATA_DIR: dir, BLUME_MODE: 'community' }),
      /BLUME_MODE must be platform or single, got "community"/,
    );
  });

  it('requires SECRET_KEY in production and never writes one there', () => {
    assert.throws(
      () => loadConfig({ BLUME_DATA_DIR: path.join(dir, 'prod'), NODE_ENV: 'production' }),
      /SECRET_KEY is required/,
    );
    assert.throws(() => loadConfig({ BLUME_DATA_DIR: dir, SECRET_KEY: 'short' }), /at least 32 characters/);
    assert.equal(
      loadConfig({ BLUME_DATA_DIR: dir, NODE_ENV: 'production', SECRET_KEY: 'k'.repeat(40) }).production,
      true,
    );
  });

  it('reads the plan of new sites, refusing a plan that does not exist', () => {
    assert.equal(loadConfig({ BLUME_DATA_DIR: dir }).defaultPlan, 'free');
    assert.equal(loadConfig({ BLUME_DATA_DIR: dir, BLUME_DEFAULT_PLAN: 'business' }).defaultPlan, 'business');
    assert.throws(
      () => loadConfig({ BLUME_DATA_DIR: dir, BLUME_DEFAULT_PLAN: 'gold' }),
      /BLUME_DEFAULT_PLAN must be one of free, pro, business, got "gold"/,
    );
  });

  it('documents every variable in the README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const variable of variables)
      assert.ok(readme.includes(`\`${variable.name}\``), `${variable.name} is missing from README.md`);
  });
});
