// The last admin of a community stays: demoting, banning or deleting it is refused with 409
// `last_admin` by the one member service, whichever way the change comes (Forum API, admin pages,
// the `blume member` command), and two admins demoting each other at once cannot both succeed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { forumApi, mintForumToken } from '../../test/factories/forum.js';
import { buildTestApp, json, operationsOf, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { runOperation, type OperationContext } from '../cli/operations.js';
import { createAccount } from '../core/accounts/service.js';
import { createSite } from '../core/sites/service.js';
import { queryRows } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { createMember, deleteMember, findMember, findMemberByUsername, updateMember } from './members.js';

const isLastAdmin = (error: unknown) =>
  error instanceof AppError && error.code === 'last_admin' && error.status === 409;

for (const database of testDatabases) {
  describe(`last admin of a community [${database}]`, () => {
    let t: TestApp;
    let ops: OperationContext;
    let adaToken: string;
    const password = 'admin-password-01';
    const db = () => t.app.deps.database.db;
    const api = (
      token: string,
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      payload?: Record<string, unknown>,
    ) => forumApi(t.app, 'town', token, { method, path, ...(payload ? { payload } : {}) });
    const idOf = async (username: string) => (await findMemberByUsername(db(), 'town', username))!.id;

    before(async () => {
      t = await buildTestApp({
        database,
        mode: 'single',
        singleSite: 'town',
        env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000' },
      });
      await createSite(db(), null, { id: 'town', kind: 'community', plan: 'business' });
      await t.app.services.epochs.announce();
      ops = operationsOf(t.app, 'town');
      assert.match(
        await runOperation(ops, 'create-admin', { username: 'ada', email: 'ada@town.test', password }),
        /Created administrator "ada"/,
      );
      adaToken = await mintForumToken(t.app, 'town', 'ada', password);
    });
    after(() => t.close());

    it('refuses to demote, ban or delete the only admin through the Forum API', async () => {
      const ada = await idOf('ada');
      for (const [method, payload] of [
        ['PATCH', { role: 'moderator' }],
        ['PATCH', { banned: true }],
        ['DELETE', undefined],
      ] as const) {
        const refused = await api(adaToken, method, `/members/${ada}`, payload);
        assert.equal(refused.statusCode, 409, refused.body);
        assert.equal(json(refused).code, 'last_admin');
        assert.match(String(json(refused).detail), /"ada" is the last admin of this community/);
      }
      const still = (await findMember(db(), 'town', ada))!;
      assert.deepEqual([still.role, still.banned], ['admin', false]);
      // Changes that leave the admin an admin pass the guard.
      assert.equal((await api(adaToken, 'PATCH', `/members/${ada}`, { role: 'admin', banned: false })).statusCode, 200);
      const fay = await createMember(db(), 'town', { username: 'fay', email: 'fay@town.test', password });
      const fayToken = await mintForumToken(t.app, 'town', 'fay', password);
      assert.equal((await api(fayToken, 'DELETE', `/members/${fay.id}`)).statusCode, 403);
      assert.equal((await api(adaToken, 'DELETE', `/members/${fay.id}`)).statusCode, 204);
      assert.equal(await findMember(db(), 'town', fay.id), undefined);
      assert.equal(
        (await api(fayToken, 'GET', '/auth/tokens')).statusCode,
        401,
        "a deleted member's tokens stop working",
      );
      assert.equal(json(await api(adaToken, 'DELETE', `/members/${fay.id}`)).code, 'member_not_found');
    });

    it('refuses it on the admin pages', async () => {
      const page = new UiClient(t.app, 'town.example');
      assert.equal((await page.login('ada', password)).statusCode, 303);
      const ada = await idOf('ada');
      await page.get('/admin/members');
      const demote = await page.post(`/admin/members/${ada}/role`, { role: 'member' });
      assert.equal(demote.statusCode, 409);
      assert.match(
        pageText(demote.body),
        /ada&quot; is the last admin of this community; make another member admin first/,
      );
      const remove = await page.post(`/admin/members/${ada}/delete`, {});
      assert.equal(remove.statusCode, 409);
      assert.equal((await findMember(db(), 'town', ada))!.role, 'admin');
    });

    it('refuses it on the command line, and lets a second admin take over', async () => {
      await assert.rejects(
        runOperation(ops, 'member', { action: 'role', username: 'ada', role: 'member' }),
        /"ada" is the last admin/,
      );
      await assert.rejects(runOperation(ops, 'member', { action: 'ban', username: 'ada' }), /"ada" is the last admin/);
      await assert.rejects(
        runOperation(ops, 'member', { action: 'delete', username: 'ada' }),
        /"ada" is the last admin/,
      );

      const bea = await api(adaToken, 'POST', '/members', {
        username: 'bea',
        email: 'bea@town.test',
        password,
        role: 'admin',
      });
      assert.equal(bea.statusCode, 201, bea.body);
      assert.equal(
        await runOperation(ops, 'member', { action: 'role', username: 'ada', role: 'member' }),
        '"ada" of community "town" is now member.',
      );
      const beaToken = await mintForumToken(t.app, 'town', 'bea', password);
      const refused = await api(beaToken, 'DELETE', `/members/${await idOf('bea')}`);
      assert.equal(json(refused).code, 'last_admin');

      // A banned admin cannot log in, so it does not count.
      const cy = await createMember(db(), 'town', { username: 'cy', email: 'cy@town.test', password, role: 'admin' });
      assert.equal((await api(beaToken, 'PATCH', `/members/${cy.id}`, { banned: true })).statusCode, 200);
      assert.equal(
        json(await api(beaToken, 'PATCH', `/members/${await idOf('bea')}`, { role: 'member' })).code,
        'last_admin',
      );
      assert.equal((await api(beaToken, 'PATCH', `/members/${cy.id}`, { banned: false })).statusCode, 200);
      assert.equal((await api(beaToken, 'PATCH', `/members/${await idOf('bea')}`, { role: 'member' })).statusCode, 200);
      assert.match(await runOperation(ops, 'member', { action: 'delete', username: 'ada' }), /Deleted "ada"/);
      assert.equal(await findMemberByUsername(db(), 'town', 'ada'), undefined);
      await assert.rejects(
        runOperation(ops, 'member', { action: 'ban', username: 'nobody' }),
        /No member "nobody" in community "town"/,
      );
    });

    it("passes on a platform site whose owner's account is always its admin", async () => {
      const owner = await createAccount(db(), {
        username: 'owner',
        email: 'owner@example.test',
        password,
        isAdmin: false,
      });
      await createSite(db(), owner, { id: 'owned', kind: 'community', plan: 'pro' });
      const ed = await createMember(db(), 'owned', { username: 'ed', email: 'ed@owned.test', password, role: 'admin' });
      assert.equal((await updateMember(db(), 'owned', ed.id, { role: 'member' })).role, 'member');
      await deleteMember(db(), 'owned', ed.id);
    });

    it(
      'lets only one of two admins demoting each other at once succeed',
      { skip: database === 'pglite' ? 'PGlite runs one connection: writes never overlap' : false },
      async () => {
        const [one, two] = await Promise.all(
          ['dee', 'eli'].map((username) =>
            createMember(db(), 'town', { username, email: `${username}@town.test`, password, role: 'admin' }),
          ),
        );
        await updateMember(db(), 'town', (await findMemberByUsername(db(), 'town', 'cy'))!.id, { role: 'member' });
        await updateMember(db(), 'town', (await findMemberByUsername(db(), 'town', 'bea'))!.id, { banned: true });
        // The first demotion holds its transaction open while the second starts on another connection.
        let demoted!: () => void;
        let release!: () => void;
        const firstDone = new Promise<void>((resolve) => (demoted = resolve));
        const held = new Promise<void>((resolve) => (release = resolve));
        const first = db().transaction(async (tx) => {
          await updateMember(tx, 'town', one!.id, { role: 'member' });
          demoted();
          await held;
        });
        await firstDone;
        // The refusal is awaited from the start: it may land before the first transaction's commit returns.
        const second = assert.rejects(updateMember(db(), 'town', two!.id, { role: 'member' }), isLastAdmin);
        // The race happened: the second demotion waits on a lock the first transaction holds.
        await eventually('the second demotion to wait on the first one', async () => {
          const [waiting] = await queryRows<{ n: number }>(
            db(),
            sql`select count(*)::int as n from pg_stat_activity
                where datname = current_database() and wait_event_type = 'Lock'`,
          );
          return waiting!.n > 0 ? true : undefined;
        });
        release();
        await Promise.all([first, second]);
        assert.equal((await findMember(db(), 'town', two!.id))!.role, 'admin');
      },
    );
  });
}
