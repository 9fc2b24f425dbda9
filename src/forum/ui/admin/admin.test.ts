// The admin area over HTTP, on both databases: who may see it, the checklist, categories and forums,
// members (with the last-admin guard) and instance settings, on a platform community site.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  addMember,
  communityHost,
  forumApi,
  makeCommunity,
  mintForumToken,
  type ForumActor,
} from '../../../../test/factories/forum.js';
import { buildTestApp, signIn, type TestApp } from '../../../../test/helpers/app.js';
import { testDatabases } from '../../../../test/helpers/databases.js';
import { pageText, UiClient } from '../../../../test/helpers/forum-ui.js';
import { loadSettings, openSetting } from '../../../core/settings/service.js';
import { findCategory, findForum } from '../../structure.js';
import { findMember } from '../../members.js';
import { decodedBody, type SmtpSink } from '../../../../test/helpers/smtp-sink.js';
import { buildMailingApp } from '../../../../test/helpers/mail-app.js';

for (const database of testDatabases) {
  describe(`forum admin area [${database}]`, () => {
    let t: TestApp;
    let ownerPassword: string;
    let moderator: ForumActor;
    let alice: ForumActor;
    const host = communityHost('club');
    const db = () => t.app.deps.database.db;
    let admin: UiClient;

    before(async () => {
      t = await buildTestApp({
        database,
        env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000', BLUME_RATE_POSTS_PER_MINUTE: '1000' },
      });
      const owner = await signIn(t.app, 'owner');
      ownerPassword = owner.password;
      await makeCommunity(t.app, owner, 'club');
      moderator = await addMember(t.app, 'club', 'mod', 'moderator');
      alice = await addMember(t.app, 'club', 'alice');
      admin = new UiClient(t.app, host);
      assert.equal((await admin.login('owner', ownerPassword)).statusCode, 303);
    });
    after(() => t.close());

    it('sends guests to log in and answers moderators and members with a 403 page', async () => {
      const guest = new UiClient(t.app, host);
      const away = await guest.get('/admin/settings');
      assert.equal(away.statusCode, 303);
      assert.equal(away.headers.location, '/login?next=%2Fadmin%2Fsettings');
      for (const actor of [moderator, alice]) {
        const client = new UiClient(t.app, host);
        await client.login(actor.member.username, actor.password);
        for (const path of [
          '/admin',
          '/admin/structure',
          '/admin/members',
          '/admin/settings',
          '/admin/forums/nope/delete',
        ]) {
          const page = await client.get(path);
          assert.equal(page.statusCode, 403, path);
          assert.match(page.headers['content-type'] as string, /text\/html/);
          assert.match(pageText(page.body), /Only admins of this community may do this/);
        }
        // Forms too, even with a valid CSRF token of their own session.
        await client.get('/');
        assert.equal((await client.post('/admin/categories', { name: 'Nope', slug: 'nope' })).statusCode, 403);
        assert.equal((await client.post('/admin/settings/restart', {})).statusCode, 403);
        assert.doesNotMatch((await client.get('/')).body, /href="\/admin"/);
      }
      await assert.rejects(findCategory(db(), 'club', 'nope'), /No category/);
    });

    it('ticks the first-run checklist from real state as the admin sets up categories and forums', async () => {
      const fresh = await admin.get('/admin');
      assert.equal(fresh.statusCode, 200);
      assert.equal(fresh.headers['cache-control'], 'no-store');
      assert.match(fresh.body, /<a href="\/admin">Admin<\/a>/);
      assert.match(pageText(fresh.body), /5 of 6 still to do/);
      for (const path of ['/up/', '/up/databases', '/up/ready']) assert.match(fresh.body, new RegExp(`href="${path}"`));
      assert.match((await admin.get('/')).body, /href="\/admin">Set up the community/);

      // Refused input comes back with the reason beside the field and the values kept.
      const bad = await admin.submit('/admin/structure', '/admin/categories', { name: 'Talk', slug: 'Not a slug!' });
      assert.equal(bad.statusCode, 422);
      assert.match(bad.body, /id="new-category-slug-error"/);
      assert.match(bad.body, /value="Talk"/);
      const long = await admin.post('/admin/categories', { name: 'Talk', slug: 'talk', description: 'x'.repeat(2001) });
      assert.equal(long.statusCode, 422, 'an over-long description is refused, not saved empty');
      assert.match(long.body, /id="new-category-description-error"/);
      assert.equal(
        (await admin.post('/admin/categories', { name: 'Talk', slug: 'talk', description: 'Chat' })).statusCode,
        303,
      );
      const taken = await admin.submit('/admin/structure', '/admin/categories', { name: 'Other', slug: 'talk' });
      assert.equal(taken.statusCode, 409);
      assert.match(pageText(taken.body), /The slug &quot;talk&quot; is taken/);
      assert.equal((await admin.post('/admin/categories', { name: 'Meta', slug: 'meta' })).statusCode, 303);
      const talk = await findCategory(db(), 'club', 'talk');
      for (const [name, slug, visibility] of [
        ['General', 'general', 'public'],
        ['Ideas', 'ideas', 'members'],
        ['Staff room', 'staff', 'staff'],
      ] as const) {
        const created = await admin.submit('/admin/structure', '/admin/forums', {
          name,
          slug,
          category: talk.id,
          visibility,
          description: `${name} talk`,
        });
        assert.equal(created.statusCode, 303, created.body);
      }
      const staff = (await findForum(db(), 'club', 'staff'))!;
      assert.equal(staff.visibility, 'staff');
      assert.equal(staff.categoryId, talk.id);

      const after = pageText((await admin.get('/admin')).body);
      assert.match(after, /3 of 6 still to do/);
      assert.match(after, /2 categories/);
      assert.match(after, /3 forums/);
      assert.match(after, /1 moderator/);
      assert.match(after, /This server sends no mail/);
    });

    it('edits, reorders, locks and deletes forums and categories, naming what goes', async () => {
      const structure = await admin.get('/admin/structure');
      assert.match(structure.body, /<details class="panel" id="new-forum">/);
      const general = (await findForum(db(), 'club', 'general'))!;
      const edit = await admin.get(`/admin/forums/${general.id}`);
      assert.match(edit.body, /<label for="forum-name">Name<\/label>/);
      assert.equal(
        (
          await admin.post(`/admin/forums/${general.id}`, {
            name: 'General chat',
            slug: 'general',
            category: '',
            visibility: 'public',
            locked: 'on',
          })
        ).statusCode,
        303,
      );
      const edited = (await findForum(db(), 'club', 'general'))!;
      assert.deepEqual([edited.name, edited.locked, edited.categoryId], ['General chat', true, null]);

      // Ideas and Staff room stay in Talk; the first move writes an order for the whole group.
      const ideas = (await findForum(db(), 'club', 'ideas'))!;
      const staff = (await findForum(db(), 'club', 'staff'))!;
      await admin.get('/admin/structure');
      assert.equal((await admin.post(`/admin/forums/${staff.id}/move`, { direction: 'up' })).statusCode, 303);
      assert.ok(
        (await findForum(db(), 'club', 'staff'))!.position < (await findForum(db(), 'club', 'ideas'))!.position,
      );
      assert.equal((await admin.post(`/admin/forums/${ideas.id}/move`, { direction: 'sideways' })).statusCode, 400);
      const meta = await findCategory(db(), 'club', 'meta');
      assert.equal((await admin.post(`/admin/categories/${meta.id}/move`, { direction: 'up' })).statusCode, 303);
      const categories = pageText((await admin.get('/admin/structure')).body);
      assert.ok(categories.indexOf('/meta') < categories.indexOf('/talk'));

      const topic = await forumApi(t.app, 'club', await mintForumToken(t.app, 'club', 'owner', ownerPassword), {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'ideas', title: 'An idea', body: 'Let us.' },
      });
      assert.equal(topic.statusCode, 201, topic.body);
      const confirm = await admin.get(`/admin/forums/${ideas.id}/delete`);
      assert.match(pageText(confirm.body), /The forum “Ideas” goes for good, with its 1 topic and 1 post/);
      assert.match(confirm.body, /Delete forum and 1 topic/);
      assert.ok(await findForum(db(), 'club', 'ideas'), 'opening the confirmation deletes nothing');
      assert.equal((await admin.post(`/admin/forums/${ideas.id}/delete`, {})).statusCode, 303);
      assert.equal(await findForum(db(), 'club', 'ideas'), undefined);

      const talk = await findCategory(db(), 'club', 'talk');
      assert.match(
        pageText((await admin.get(`/admin/categories/${talk.id}/delete`)).body),
        /Its 1 forum and their topics stay, without a category/,
      );
      assert.equal((await admin.post(`/admin/categories/${talk.id}/delete`, {})).statusCode, 303);
      assert.equal((await findForum(db(), 'club', 'staff'))!.categoryId, null);
      // Without the page's CSRF token nothing happens.
      assert.equal((await admin.post(`/admin/categories/${meta.id}/delete`, {}, { csrf: false })).statusCode, 403);
      assert.ok(await findCategory(db(), 'club', 'meta'));
    });

    it('searches members, changes roles, bans, and deletes them; the owner account is not editable', async () => {
      const posted = await forumApi(t.app, 'club', moderator.token, {
        method: 'POST',
        path: '/topics',
        payload: { forum_id: 'general', title: 'Counted on the card', body: 'One post.' },
      });
      assert.equal(posted.statusCode, 201, posted.body);
      const all = await admin.get('/admin/members');
      assert.match(pageText(all.body), /3 members/);
      assert.match(pageText(all.body), /The site owner’s account/);
      // Each card says how much the member posted and when they were last active.
      const aliceCard =
        /<li class="card" aria-labelledby="m-[^"]+"><div class="card-head"><a [^>]*>alice<\/a>[\s\S]*?<\/li>/.exec(
          all.body,
        )![0];
      assert.match(pageText(aliceCard), /0 posts · last active now/);
      const modCard =
        /<li class="card" aria-labelledby="m-[^"]+"><div class="card-head"><a [^>]*>mod<\/a>[\s\S]*?<\/li>/.exec(
          all.body,
        )![0];
      assert.match(pageText(modCard), /1 post · last active now/);
      const found = await admin.get('/admin/members?q=ALI');
      assert.match(pageText(found.body), /1 member match “ALI”/);
      assert.match(found.body, /<label for="role-[^"]+" class="sr-only">Role of alice<\/label>/);
      assert.match(pageText((await admin.get('/admin/members?q=%25')).body), /0 members match/);

      assert.equal((await admin.post(`/admin/members/${alice.member.id}/role`, { role: 'moderator' })).statusCode, 303);
      assert.equal((await findMember(db(), 'club', alice.member.id))!.role, 'moderator');
      const banned = await admin.post(`/admin/members/${alice.member.id}/ban`, { banned: 'true' });
      assert.equal(banned.headers.location, '/admin/members?done=banned&who=alice');
      assert.match(
        pageText((await admin.get(banned.headers.location)).body),
        /alice is banned; their sessions have ended/,
      );
      assert.equal((await forumApi(t.app, 'club', alice.token, { method: 'GET', path: '/members' })).statusCode, 403);
      assert.equal((await admin.post(`/admin/members/${alice.member.id}/ban`, { banned: 'false' })).statusCode, 303);
      assert.equal((await findMember(db(), 'club', alice.member.id))!.banned, false);

      const owner = (await admin.get('/admin/members?q=owner')).body;
      assert.doesNotMatch(owner, /Role of owner/);

      const added = await admin.submit('/admin/members', '/admin/members', {
        username: 'carol',
        email: 'carol@members.test',
        role: 'member',
        password: 'carol-password-1',
      });
      assert.equal(added.statusCode, 303);
      const again = await admin.submit('/admin/members', '/admin/members', {
        username: 'Carol',
        email: 'c2@members.test',
        role: 'member',
        password: 'carol-password-1',
      });
      assert.equal(again.statusCode, 409);
      assert.match(again.body, /id="new-username-error"/);
      const noMail = await admin.submit('/admin/members', '/admin/members', {
        username: 'dave',
        email: 'dave@members.test',
        role: 'member',
        password: '',
      });
      assert.equal(noMail.statusCode, 422, 'a new member needs a password');
      assert.match(noMail.body, /id="new-password-error"/);
      const carol = new UiClient(t.app, host);
      assert.equal((await carol.login('carol', 'carol-password-1')).statusCode, 303);

      const id = /action="\/admin\/members\/([^/]+)\/role"[^]*?Role of carol/.exec(
        (await admin.get('/admin/members?q=carol')).body,
      )?.[1];
      assert.ok(id);
      assert.match(
        pageText((await admin.get(`/admin/members/${id}/delete`)).body),
        /carol &lt;carol@members\.test&gt; goes/,
      );
      assert.equal((await admin.post(`/admin/members/${id}/delete`, {})).statusCode, 303);
      assert.equal(await findMember(db(), 'club', id), undefined);
      assert.equal((await carol.get('/account')).statusCode, 303, 'the deleted member is logged out');
    });

    it('saves typed settings as desired state, masks secrets, lists pending changes and applies them on restart', async () => {
      const page = await admin.get('/admin/settings');
      assert.match(
        page.body,
        /<label for="FORUM_API_PUBLIC_READ">FORUM_API_PUBLIC_READ<\/label><select id="FORUM_API_PUBLIC_READ"/,
      );
      assert.match(page.body, /<input type="url" id="AI_BASE_URL"/);
      assert.match(page.body, /<input type="number" id="MAIL_PORT"/);
      assert.match(page.body, /<input type="password" id="AI_API_KEY"/);
      assert.match(pageText(page.body), /Pending changes None/);

      const invalid = await admin.post('/admin/settings', {
        FORUM_TITLE: 'The Club',
        API_CORS_ORIGINS: 'not an origin',
        MAIL_PORT: '99999',
      });
      assert.equal(invalid.statusCode, 422);
      assert.match(invalid.body, /id="API_CORS_ORIGINS-error"/);
      assert.match(invalid.body, /id="MAIL_PORT-error"/);
      assert.match(invalid.body, /value="The Club"/);
      const long = await admin.post('/admin/settings', { FORUM_TITLE: 'x'.repeat(4001) });
      assert.equal(long.statusCode, 422, 'an over-long value is refused, not dropped');
      assert.match(long.body, /id="FORUM_TITLE-error"/);
      assert.deepEqual((await loadSettings(db(), 'club')).desired, {}, 'nothing is saved when a value is refused');

      const secret = 'sk-very-secret-key-123';
      const saved = await admin.post('/admin/settings', {
        FORUM_TITLE: 'The Club',
        FORUM_API_PUBLIC_READ: 'true',
        API_CORS_ORIGINS: 'https://app.example.com',
        AI_API_KEY: secret,
        REGISTRATION_OPEN: '',
      });
      assert.equal(saved.statusCode, 303);
      const pending = await admin.get('/admin/settings?saved=1');
      assert.doesNotMatch(pending.body, new RegExp(secret));
      assert.match(pageText(pending.body), /4 saved changes wait for a restart/);
      assert.match(pending.body, /Apply and restart/);
      assert.equal(
        (
          await forumApi(t.app, 'club', undefined, {
            method: 'GET',
            path: '/forums',
            headers: { origin: 'https://app.example.com' },
          })
        ).statusCode,
        401,
      );

      // Saving again without touching the secret keeps it; the checkbox removes it.
      await admin.post('/admin/settings', {
        FORUM_TITLE: 'The Club',
        FORUM_API_PUBLIC_READ: 'true',
        API_CORS_ORIGINS: 'https://app.example.com',
        AI_API_KEY: '',
      });
      assert.equal(openSetting((await loadSettings(db(), 'club')).desired, 'AI_API_KEY', t.config.secretKey), secret);

      const restarted = await admin.post('/admin/settings/restart', {});
      assert.match(restarted.headers.location as string, /^\/admin\/settings\?applied=1&changed=4$/);
      assert.match(
        pageText((await admin.get(restarted.headers.location as string)).body),
        /Applied on every node \(generation 1\): 4 settings changed/,
      );
      const read = await forumApi(t.app, 'club', undefined, {
        method: 'GET',
        path: '/forums',
        headers: { origin: 'https://app.example.com' },
      });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.headers['access-control-allow-origin'], 'https://app.example.com');
      assert.match((await admin.get('/')).body, /<title>The Club<\/title>/);

      await admin.get('/admin/settings');
      await admin.post('/admin/settings', {
        FORUM_TITLE: 'The Club',
        FORUM_API_PUBLIC_READ: 'true',
        API_CORS_ORIGINS: 'https://app.example.com',
        clear_AI_API_KEY: 'on',
      });
      assert.equal((await loadSettings(db(), 'club')).desired.AI_API_KEY, undefined);
    });
  });

  describe(`forum admin area with mail [${database}]`, () => {
    let t: TestApp;
    let sink: SmtpSink;
    let admin: UiClient;
    let alice: ForumActor;
    const host = communityHost('club');

    before(async () => {
      ({ t, sink } = await buildMailingApp(database, { BLUME_MAIL_DEFAULT_SENDER: 'Club <club@blume.test>' }));
      const owner = await signIn(t.app, 'owner');
      await makeCommunity(t.app, owner, 'club');
      alice = await addMember(t.app, 'club', 'alice');
      admin = new UiClient(t.app, host);
      await admin.login('owner', owner.password);
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('ticks mail in the checklist and sends a member a password-reset mail through the outbox', async () => {
      assert.match(
        pageText((await admin.get('/admin')).body),
        /This server sends mail: confirmations, password resets, reply notices/,
      );
      const page = await admin.get('/admin/members?q=alice');
      assert.match(page.body, new RegExp(`action="/admin/members/${alice.member.id}/reset"`));
      const sent = await admin.post(`/admin/members/${alice.member.id}/reset`, {});
      assert.equal(sent.headers.location, '/admin/members?done=reset&who=alice');
      const mail = await sink.next();
      assert.deepEqual(mail.to, ['alice@members.test']);
      const link = /http:\/\/club\.blume\.test\/password\/reset\/[0-9a-z]+\.[A-Za-z0-9_-]+/.exec(
        decodedBody(mail),
      )?.[0];
      assert.ok(link, decodedBody(mail));
      const member = new UiClient(t.app, host);
      const path = new URL(link).pathname;
      assert.equal((await member.submit(path, path, { new_password: 'a-brand-new-password' })).statusCode, 303);
      assert.equal((await new UiClient(t.app, host).login('alice', 'a-brand-new-password')).statusCode, 303);

      // Banned members get no reset mail (they could not log in with it anyway).
      await admin.get('/admin/members');
      await admin.post(`/admin/members/${alice.member.id}/ban`, { banned: 'true' });
      assert.doesNotMatch((await admin.get('/admin/members?q=alice')).body, /\/reset"/);
      const refused = await admin.post(`/admin/members/${alice.member.id}/reset`, {});
      assert.equal(refused.statusCode, 403);
      assert.match(pageText(refused.body), /alice cannot reset a password here/);
    });
  });
}
