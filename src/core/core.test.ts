// Unit tests of core's services on both databases: accounts, sites, instance settings and plans.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, testDatabases, type TestDatabase } from '../../test/helpers/databases.js';
import type { Database } from '../db/client.js';
import { AppError } from '../http/errors.js';
import {
  authenticate,
  createAccount,
  endSession,
  findUserByLogin,
  startSession,
  userForSession,
} from './accounts/service.js';
import { loadFeaturePlans, seedFeatures, writeFeaturePlans } from './plans/service.js';
import { SECRET_MASK } from './settings/allowlist.js';
import {
  applyDesiredSettings,
  diffSettings,
  loadSettings,
  openSetting,
  replaceDesiredSettings,
  validateSettings,
} from './settings/service.js';
import { createSite, deleteSite, findSite, listSites, siteIdProblem } from './sites/service.js';

const KEY = 'test-secret-key-test-secret-key-test-secret-key';

async function rejects(promise: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    return error;
  }
  assert.fail(`expected ${code}`);
}

for (const database of testDatabases) {
  describe(`core services [${database}]`, () => {
    let testDb: TestDatabase;
    let db: Database;
    before(async () => {
      testDb = await createTestDatabase(database);
      db = testDb.handle.db;
    });
    after(() => testDb.drop());

    it('accounts: usernames and e-mail addresses are unique regardless of case; login takes either', async () => {
      const ada = await createAccount(db, {
        username: 'Ada',
        email: 'ada@example.test',
        password: 'correct horse battery',
      });
      assert.equal(ada.isAdmin, false);
      assert.notEqual(ada.passwordHash, 'correct horse battery');
      await rejects(
        createAccount(db, { username: 'ADA', email: 'other@example.test', password: 'x'.repeat(12) }),
        'username_taken',
      );
      await rejects(
        createAccount(db, { username: 'grace', email: 'ADA@example.test', password: 'x'.repeat(12) }),
        'email_taken',
      );
      assert.equal((await findUserByLogin(db, 'ada'))?.id, ada.id);
      assert.equal((await authenticate(db, 'ADA@EXAMPLE.TEST', 'correct horse battery'))?.id, ada.id);
      assert.equal(await authenticate(db, 'ada', 'wrong horse'), undefined);
      assert.equal(await authenticate(db, 'nobody', 'correct horse battery'), undefined);
    });

    it('accounts: a session cookie finds its user until it ends, and a forged secret finds nobody', async () => {
      const user = await createAccount(db, { username: 'lin', email: 'lin@example.test', password: 'lin-password-1' });
      const cookie = await startSession(db, user.id);
      assert.equal((await userForSession(db, cookie))?.id, user.id);
      const [id] = cookie.split('.');
      assert.equal(await userForSession(db, `${id}.${'A'.repeat(43)}`), undefined);
      assert.equal(await userForSession(db, 'not-a-cookie'), undefined);
      await endSession(db, cookie);
      assert.equal(await userForSession(db, cookie), undefined);
    });

    it('sites: ids are host labels that name no platform host; each exists once; owners see their own', async () => {
      assert.equal(siteIdProblem('docs-1'), undefined);
      for (const bad of ['Docs', '-docs', 'docs-', 'a--b', 'r-preview', 'www', 'portal', 'x'.repeat(41), ''])
        assert.ok(siteIdProblem(bad), bad);
      const owner = await createAccount(db, {
        username: 'owner',
        email: 'owner@example.test',
        password: 'owner-password',
      });
      const admin = await createAccount(db, {
        username: 'root',
        email: 'root@example.test',
        password: 'root-password',
        isAdmin: true,
      });
      const site = await createSite(db, owner, { id: 'docs-1', kind: 'static' });
      assert.equal(site.plan, 'free');
      assert.equal(site.ownerId, owner.id);
      await rejects(createSite(db, owner, { id: 'docs-1', kind: 'community' }), 'site_exists');
      await rejects(createSite(db, owner, { id: 'stage', kind: 'static' }), 'invalid_site_id');
      await createSite(db, admin, { id: 'club', kind: 'community', plan: 'pro' });
      assert.deepEqual(
        (await listSites(db, owner)).map((row) => row.id),
        ['docs-1'],
      );
      assert.deepEqual(new Set((await listSites(db, admin)).map((row) => row.id)), new Set(['docs-1', 'club']));
      await deleteSite(db, 'docs-1');
      assert.equal(await findSite(db, 'docs-1'), undefined);
    });

    it('settings: a PUT replaces the desired map, checked by type; a restart applies it and says what changed', async () => {
      await createSite(db, null, { id: 'forum', kind: 'community', plan: 'pro' });
      const unknown = await rejects(
        replaceDesiredSettings(db, 'forum', { NOT_A_SETTING: 'x' }, KEY),
        'unknown_setting',
      );
      assert.deepEqual(unknown.extensions.unknown, ['NOT_A_SETTING']);
      const invalid = await rejects(
        replaceDesiredSettings(db, 'forum', { REGISTRATION_OPEN: 'perhaps', API_CORS_ORIGINS: 'not an origin' }, KEY),
        'invalid_setting',
      );
      assert.deepEqual((invalid.extensions.errors as Array<{ name: string }>).map((error) => error.name).sort(), [
        'API_CORS_ORIGINS',
        'REGISTRATION_OPEN',
      ]);
      const desired = await replaceDesiredSettings(
        db,
        'forum',
        { FORUM_TITLE: ' Club ', REGISTRATION_OPEN: true, AI_API_KEY: 'sk-secret', AI_MODEL: '' },
        KEY,
      );
      // Secrets are stored sealed with SECRET_KEY and opened only where they are used.
      const { AI_API_KEY: sealed, ...plain } = desired.desired;
      assert.deepEqual(plain, { FORUM_TITLE: 'Club', REGISTRATION_OPEN: 'true' });
      assert.notEqual(sealed, 'sk-secret');
      assert.equal(openSetting(desired.desired, 'AI_API_KEY', KEY), 'sk-secret');
      assert.deepEqual((await loadSettings(db, 'forum')).applied, {}, 'desired until a restart');

      const first = await applyDesiredSettings(db, 'forum');
      assert.deepEqual(first.row.applied, desired.desired);
      assert.deepEqual(
        first.changes.map((change) => `${change.name} ${change.change}`),
        ['AI_API_KEY added', 'FORUM_TITLE added', 'REGISTRATION_OPEN added'],
      );
      // A client PUTs back what it read: the masked secret keeps its value.
      await replaceDesiredSettings(db, 'forum', { FORUM_TITLE: 'Club', AI_API_KEY: SECRET_MASK }, KEY);
      const second = await applyDesiredSettings(db, 'forum');
      assert.equal(second.row.applied.AI_API_KEY, sealed);
      assert.deepEqual(second.changes, [{ name: 'REGISTRATION_OPEN', change: 'removed' }]);
      assert.equal(second.row.generation, first.row.generation + 1);
    });

    it('plans: features start at their defaults, seeding is idempotent, and an operator change is kept', async () => {
      const defaults = await loadFeaturePlans(db);
      assert.deepEqual(defaults.get('deploy'), ['free', 'pro', 'business']);
      assert.deepEqual(defaults.get('forum_api'), ['pro', 'business']);
      assert.deepEqual(defaults.get('ai'), ['business']);
      assert.equal(await seedFeatures(db), 6);
      await writeFeaturePlans(db, 'forum_api', ['business']);
      assert.equal(await seedFeatures(db), 0, 'seeding again adds nothing and keeps the change');
      assert.deepEqual((await loadFeaturePlans(db)).get('forum_api'), ['business']);
      await writeFeaturePlans(db, 'forum_api', ['pro', 'business']);
      assert.deepEqual((await loadFeaturePlans(db)).get('forum_api'), ['pro', 'business']);
    });
  });
}

describe('settings validation', () => {
  it('refuses the mask for a secret that was never stored', () => {
    assert.throws(
      () => validateSettings({ AI_API_KEY: SECRET_MASK }, {}, KEY),
      (error: unknown) => error instanceof AppError && error.code === 'invalid_setting',
    );
  });

  it('diffs two maps by name', () => {
    assert.deepEqual(diffSettings({ A: '1', B: '2' }, { B: '3', C: '4' }), [
      { name: 'A', change: 'removed' },
      { name: 'B', change: 'changed' },
      { name: 'C', change: 'added' },
    ]);
  });
});
