// A site's team through the portal API, with mail through a real SMTP server on loopback: an owner
// invites by e-mail, the mailed link is accepted by the account of that address only, roles decide
// what each member may do, and the last owner cannot be removed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, json, portal, signIn, type Actor, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { createStaticSite } from '../../test/helpers/deploy.js';
import { eventually } from '../../test/helpers/eventually.js';
import { decodedBody, startSmtpSink, type SmtpSink, sinkMailEnv } from '../../test/helpers/smtp-sink.js';

const LINK = /\/invitations\/([0-9a-z]{16}\.[A-Za-z0-9_-]+)/;

interface Member {
  username: string;
  role: string;
  owner_of_record: boolean;
  user_id: string;
}

for (const database of testDatabases) {
  describe(`site teams [${database}]`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let owner: Actor;
    let dana: Actor;
    let vic: Actor;

    const invite = (as: Actor, email: string, role: string) =>
      portal(t.app, as, { method: 'POST', url: '/api/sites/atlas/invitations', payload: { email, role } });
    const linkFor = async (address: string): Promise<string> => {
      const mail = await eventually(
        `a mail for ${address}`,
        async () => {
          await t.app.mailOutbox.idle();
          return sink.received.filter((m) => m.to.includes(address)).at(-1);
        },
        5_000,
      );
      const match = LINK.exec(decodedBody(mail));
      assert.ok(match, decodedBody(mail));
      return match[1]!;
    };
    const accept = (as: Actor, token: string) =>
      portal(t.app, as, { method: 'POST', url: '/api/invitations/accept', payload: { token } });
    const members = async (as: Actor) =>
      json<Member[]>(await portal(t.app, as, { method: 'GET', url: '/api/sites/atlas/members' }));

    before(async () => {
      sink = await startSmtpSink();
      t = await buildTestApp({
        database,
        env: {
          ...sinkMailEnv(sink),
          BLUME_MAIL_DEFAULT_SENDER: 'Blume <noreply@blume.test>',
        },
      });
      owner = await signIn(t.app, 'olive');
      dana = await signIn(t.app, 'dana');
      vic = await signIn(t.app, 'vic');
      await createStaticSite(t.app, owner, 'atlas');
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('mails an invitation whose link only the invited address can accept', async () => {
      const created = await invite(owner, 'Dana@Example.test', 'developer');
      assert.equal(created.statusCode, 201, created.body);
      const body = json(created);
      assert.equal(body.email, 'dana@example.test');
      assert.equal(body.role, 'developer');
      assert.equal(body.mailed, true);
      assert.equal(body.accept_url, null);
      const token = await linkFor('dana@example.test');
      const mail = sink.received.at(-1)!;
      assert.match(mail.headers.get('subject') ?? '', /Join the site atlas/);
      assert.match(decodedBody(mail), /olive invites you to work on the Blume site atlas as developer/);

      const listed = await portal(t.app, owner, { method: 'GET', url: '/api/sites/atlas/invitations' });
      assert.deepEqual(
        json<{ email: string }[]>(listed).map((i) => i.email),
        ['dana@example.test'],
      );
      assert.doesNotMatch(listed.body, new RegExp(token.split('.')[1]!));

      const wrong = await accept(vic, token);
      assert.equal(wrong.statusCode, 403);
      assert.equal(json(wrong).code, 'invitation_email_mismatch');
      const joined = await accept(dana, token);
      assert.equal(joined.statusCode, 200, joined.body);
      assert.deepEqual(json(joined), { site: 'atlas', role: 'developer' });
      const spent = await accept(dana, token);
      assert.equal(spent.statusCode, 404);
      assert.equal(json(spent).code, 'invitation_not_found');
      assert.deepEqual(
        (await members(owner)).map((m) => [m.username, m.role, m.owner_of_record]),
        [
          ['olive', 'owner', true],
          ['dana', 'developer', false],
        ],
      );
      const sites = json<{ id: string }[]>(await portal(t.app, dana, { method: 'GET', url: '/api/sites' }));
      assert.deepEqual(
        sites.map((s) => s.id),
        ['atlas'],
      );
      assert.equal(json(await invite(owner, 'dana@example.test', 'viewer')).code, 'already_member');
    });

    it('enforces roles: developers deploy, viewers read, only owners manage the team or delete', async () => {
      assert.equal((await invite(owner, 'vic@example.test', 'viewer')).statusCode, 201);
      assert.equal((await accept(vic, await linkFor('vic@example.test'))).statusCode, 200);
      const token = await portal(t.app, dana, {
        method: 'POST',
        url: '/api/sites/atlas/deploy-tokens',
        payload: { name: 'dana ci' },
      });
      assert.equal(token.statusCode, 201, token.body);
      const viewerToken = await portal(t.app, vic, {
        method: 'POST',
        url: '/api/sites/atlas/deploy-tokens',
        payload: { name: 'nope' },
      });
      assert.equal(viewerToken.statusCode, 403);
      assert.equal(json(viewerToken).code, 'site_role_required');
      assert.equal((await portal(t.app, vic, { method: 'GET', url: '/api/sites/atlas' })).statusCode, 200);
      assert.equal((await members(vic)).length, 3);
      const developerInvites = await invite(dana, 'eve@example.test', 'owner');
      assert.equal(json(developerInvites).code, 'site_role_required');
      const developerDeletes = await portal(t.app, dana, { method: 'DELETE', url: '/api/sites/atlas' });
      assert.equal(developerDeletes.statusCode, 403);
      const stranger = await signIn(t.app, 'stranger');
      assert.equal(
        json(await portal(t.app, stranger, { method: 'GET', url: '/api/sites/atlas/members' })).code,
        'site_not_found',
      );
    });

    it('keeps the last owner and hands the site on when its owner of record leaves', async () => {
      const ownerId = owner.user.id;
      const last = await portal(t.app, owner, { method: 'DELETE', url: `/api/sites/atlas/members/${ownerId}` });
      assert.equal(last.statusCode, 409);
      assert.equal(json(last).code, 'last_owner');

      assert.equal((await invite(owner, 'dana@example.test', 'owner')).statusCode, 409);
      const removed = await portal(t.app, owner, { method: 'DELETE', url: `/api/sites/atlas/members/${dana.user.id}` });
      assert.equal(removed.statusCode, 204);
      assert.equal((await portal(t.app, dana, { method: 'GET', url: '/api/sites/atlas' })).statusCode, 404);
      assert.equal((await invite(owner, 'dana@example.test', 'owner')).statusCode, 201);
      assert.equal((await accept(dana, await linkFor('dana@example.test'))).statusCode, 200);

      const handedOn = await portal(t.app, owner, { method: 'DELETE', url: `/api/sites/atlas/members/${ownerId}` });
      assert.equal(handedOn.statusCode, 204, handedOn.body);
      assert.deepEqual(
        (await members(dana)).map((m) => [m.username, m.role, m.owner_of_record]),
        [
          ['dana', 'owner', true],
          ['vic', 'viewer', false],
        ],
      );
      const lastAgain = await portal(t.app, dana, {
        method: 'DELETE',
        url: `/api/sites/atlas/members/${dana.user.id}`,
      });
      assert.equal(json(lastAgain).code, 'last_owner');
      assert.equal((await portal(t.app, owner, { method: 'GET', url: '/api/sites/atlas' })).statusCode, 404);
    });

    it('withdraws an invitation so its link stops working', async () => {
      const created = json<{ id: string }>(await invite(dana, 'late@example.test', 'viewer'));
      const token = await linkFor('late@example.test');
      const withdrawn = await portal(t.app, dana, {
        method: 'DELETE',
        url: `/api/sites/atlas/invitations/${created.id}`,
      });
      assert.equal(withdrawn.statusCode, 204);
      const late = await signIn(t.app, 'late');
      assert.equal(json(await accept(late, token)).code, 'invitation_not_found');
    });
  });
}
