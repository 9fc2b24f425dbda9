// The owner's invitation when the purchase API provisions a workspace, against a real SMTP server on
// loopback: a new owner gets one mail whose link sets the password once and logs in; an existing
// account gets an offer it accepts or declines in the console, and nothing until then; a replayed
// Idempotency-Key gets no mail; a used or expired link answers 410; a server
// without mail still provisions and says so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { buildTestApp, json, portal, PORTAL_HOST, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { eventually } from '../../test/helpers/eventually.js';
import { pageText, UiClient } from '../../test/helpers/forum-ui.js';
import { decodedBody, type ReceivedMail, type SmtpSink } from '../../test/helpers/smtp-sink.js';
import { buildMailingApp } from '../../test/helpers/mail-app.js';
import { findUserByLogin } from '../core/accounts/service.js';
import { findSite } from '../core/sites/service.js';
import { accountTokens } from '../core/accounts/tables.js';
import { hashSecret } from '../lib/secret-tokens.js';

const BASE = '/api/purchase/v1';
const LINK = /http:\/\/blume\.test\/password\/set\/([0-9a-z]{16})\.([A-Za-z0-9_-]{43})/;

/** The path of the password link in the mail (the test app answers on any host). */
function linkPath(mail: ReceivedMail): { path: string; id: string; secret: string } {
  const match = LINK.exec(decodedBody(mail));
  assert.ok(match, `no password link in:\n${decodedBody(mail)}`);
  return { path: match[0].slice('http://blume.test'.length), id: match[1]!, secret: match[2]! };
}

/** The password `signIn` gives the platform admin `root`. */
const rootPassword = 'pw-root-0123456789';

async function purchaseKey(t: TestApp): Promise<string> {
  const root = await signIn(t.app, 'root', { admin: true });
  const minted = await portal(t.app, root, {
    method: 'POST',
    url: '/api/admin/purchase-keys',
    payload: { name: 'billing' },
  });
  assert.equal(minted.statusCode, 201, minted.body);
  return json<{ token: string }>(minted).token;
}

for (const database of testDatabases) {
  describe(`workspace owner invitations [${database}]`, () => {
    let sink: SmtpSink;
    let t: TestApp;
    let key: string;

    const provision = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      portal(t.app, undefined, {
        method: 'POST',
        url: `${BASE}/workspaces`,
        headers: { authorization: `Bearer ${key}`, ...headers },
        payload: body,
      });
    /** Mails that reached the sink for `address`, once the outbox has sent what it had. */
    const mailsTo = async (address: string) => {
      await t.app.mailOutbox.idle();
      return sink.received.filter((mail) => mail.to.some((to) => to.toLowerCase() === address.toLowerCase()));
    };
    const firstMailTo = (address: string) =>
      eventually(`a mail for ${address}`, async () => (await mailsTo(address))[0], 5_000);
    const login = (name: string, password: string) =>
      portal(t.app, undefined, { method: 'POST', url: '/api/auth/login', payload: { login: name, password } });

    before(async () => {
      ({ t, sink } = await buildMailingApp(database, { BLUME_MAIL_DEFAULT_SENDER: 'Blume <noreply@blume.test>' }));
      key = await purchaseKey(t);
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    it('mails a new owner a link that sets the password once and logs in', async () => {
      const created = await provision({
        site_id: 'atelier',
        kind: 'community',
        plan: 'pro',
        owner_email: 'Nora@Example.test',
        owner_name: 'Nora',
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(json(created).invitation, 'sent');

      const mail = await firstMailTo('Nora@Example.test');
      assert.equal(mail.headers.get('from'), 'Blume <noreply@blume.test>');
      assert.match(mail.headers.get('subject') ?? '', /Your workspace atelier is ready/);
      assert.equal(mail.headers.get('auto-submitted'), 'auto-generated');
      assert.match(decodedBody(mail), /its username is Nora/);
      assert.match(decodedBody(mail), /http:\/\/atelier\.blume\.test/);
      const link = linkPath(mail);
      // Only the secret's hash is kept.
      const [row] = await t.deps.database.db.select().from(accountTokens).where(eq(accountTokens.id, link.id));
      assert.equal(row?.purpose, 'invite');
      assert.equal(row?.secretHash, hashSecret(link.secret));
      assert.ok(row!.expiresAt.getTime() - Date.now() > 6.9 * 24 * 3600 * 1000, 'valid for 7 days');

      // Nobody knows the password the account was made with.
      assert.equal((await login('Nora', 'pw-nora-new-0123')).statusCode, 401);
      const nora = new UiClient(t.app, PORTAL_HOST);
      const page = await nora.get(link.path);
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Welcome to Blume.*An account was made for you: Nora/);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['referrer-policy'], 'same-origin');
      const weak = await nora.post(link.path, { password: 'short' });
      assert.equal(weak.statusCode, 422);
      assert.match(pageText(weak.body), /The password must be 10 to 200 characters long/);
      const set = await nora.post(link.path, { password: 'pw-nora-new-0123' });
      assert.equal(set.statusCode, 303, set.body);
      assert.equal(set.headers.location, '/');
      const home = await nora.get('/');
      assert.match(pageText(home.body), /Sites.*atelier/, 'logged in, with the workspace listed');

      // The link worked once.
      const again = await new UiClient(t.app, PORTAL_HOST).get(link.path);
      assert.equal(again.statusCode, 410);
      assert.match(pageText(again.body), /This link no longer works/);
      const replayed = await nora.post(link.path, { password: 'pw-someone-else-0123' });
      assert.equal(replayed.statusCode, 410);

      // The owner logs in through the portal API with the password chosen.
      const api = await login('nora@example.test', 'pw-nora-new-0123');
      assert.equal(api.statusCode, 200, api.body);
      assert.equal(json(api).username, 'Nora');
      assert.equal((await login('nora@example.test', 'pw-someone-else-0123')).statusCode, 401);
      assert.equal((await mailsTo('Nora@Example.test')).length, 1);
    });

    it('never hands an existing account a workspace: it is offered, and joins the account once accepted', async () => {
      const olga = await signIn(t.app, 'olga');
      const created = await provision({
        site_id: 'olgas',
        kind: 'static',
        plan: 'free',
        owner_email: 'OLGA@example.test',
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(json(created).invitation, 'offer_sent');
      assert.equal(json(created).owner_email, 'olga@example.test');
      assert.equal(json(created).owner_pending, true);
      assert.equal((await findSite(t.deps.database.db, 'olgas'))?.ownerId, null, 'not hers yet');
      const sites = async () =>
        json<Array<{ id: string }>>(await portal(t.app, olga, { method: 'GET', url: '/api/sites' })).map((s) => s.id);
      assert.deepEqual(await sites(), []);
      assert.equal(
        (await portal(t.app, olga, { method: 'GET', url: '/api/sites/olgas' })).statusCode,
        404,
        'she cannot manage it before accepting',
      );

      // One mail, naming the offer and the console page; no password link, the password stays.
      const [mail, ...more] = await mailsTo('olga@example.test');
      assert.equal(more.length, 0);
      assert.match(decodedBody(mail!), /only if you accept it.*http:\/\/blume\.test\/workspace-offers/s);
      assert.doesNotMatch(decodedBody(mail!), LINK);
      assert.deepEqual(
        await t.deps.database.db.select().from(accountTokens).where(eq(accountTokens.userId, olga.user.id)),
        [],
      );
      assert.equal((await login('olga', olga.password)).statusCode, 200, 'the password stays as it was');

      // Someone else's session cannot answer her offer; her own accepts it.
      const mallory = await signIn(t.app, 'mallory');
      const other = new UiClient(t.app, PORTAL_HOST);
      await other.login('mallory', mallory.password);
      await other.get('/workspace-offers');
      assert.equal((await other.post('/workspace-offers/olgas/accept', {})).statusCode, 404);
      const browser = new UiClient(t.app, PORTAL_HOST);
      assert.equal((await browser.get('/workspace-offers')).headers.location, '/login?next=%2Fworkspace-offers');
      await browser.login('olga', olga.password);
      assert.match(pageText((await browser.get('/')).body), /1 workspace is offered to you/);
      const offers = await browser.get('/workspace-offers');
      assert.match(pageText(offers.body), /olgas \(static, free\)/);
      assert.equal((await browser.post('/workspace-offers/olgas/accept', {}, { csrf: false })).statusCode, 403);
      const accepted = await browser.post('/workspace-offers/olgas/accept', {});
      assert.equal(accepted.headers.location, '/sites/olgas', accepted.body);
      assert.equal((await findSite(t.deps.database.db, 'olgas'))?.ownerId, olga.user.id);
      assert.deepEqual(await sites(), ['olgas']);
      const workspace = json(
        await portal(t.app, undefined, {
          method: 'GET',
          url: `${BASE}/workspaces/olgas`,
          headers: { authorization: `Bearer ${key}` },
        }),
      );
      assert.equal(workspace.owner_pending, false);
      assert.equal(workspace.owner_email, 'olga@example.test');
      await browser.get('/workspace-offers');
      assert.equal((await browser.post('/workspace-offers/olgas/accept', {})).statusCode, 404, 'answered once');
    });

    it("offers a workspace for the platform admin's address too, and a declined one stays ownerless", async () => {
      const root = await findUserByLogin(t.deps.database.db, 'root');
      const created = await provision({
        site_id: 'trap',
        kind: 'community',
        plan: 'business',
        owner_email: root!.email,
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(json(created).owner_pending, true);
      assert.equal((await findSite(t.deps.database.db, 'trap'))?.ownerId, null);
      const browser = new UiClient(t.app, PORTAL_HOST);
      await browser.login('root', rootPassword);
      await browser.get('/workspace-offers');
      const declined = await browser.post('/workspace-offers/trap/decline', {});
      assert.equal(declined.headers.location, '/workspace-offers?declined=trap');
      assert.equal((await findSite(t.deps.database.db, 'trap'))?.ownerId, null);
      const workspace = json(
        await portal(t.app, undefined, {
          method: 'GET',
          url: `${BASE}/workspaces/trap`,
          headers: { authorization: `Bearer ${key}` },
        }),
      );
      assert.equal(workspace.owner_pending, false);
      assert.equal(workspace.owner_email, null);
      assert.equal(
        (await browser.post('/workspace-offers/trap/accept', {})).statusCode,
        404,
        'a declined offer is gone',
      );
    });

    it('answers a replayed Idempotency-Key with the first result and sends no second mail', async () => {
      const body = { site_id: 'twice', kind: 'static', plan: 'pro', owner_email: 'twice@example.test' };
      const first = await provision(body, { 'idempotency-key': 'order-7' });
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(json(first).invitation, 'sent');
      await firstMailTo('twice@example.test');
      const again = await provision(body, { 'idempotency-key': 'order-7' });
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(json(again), json(first));
      assert.equal((await mailsTo('twice@example.test')).length, 1);
      const owner = await findUserByLogin(t.deps.database.db, 'twice@example.test');
      assert.equal(
        (await t.deps.database.db.select().from(accountTokens).where(eq(accountTokens.userId, owner!.id))).length,
        1,
      );
    });

    it('answers 410 to an expired invitation and sets nothing', async () => {
      assert.equal(
        (await provision({ site_id: 'late', kind: 'static', plan: 'free', owner_email: 'late@example.test' }))
          .statusCode,
        201,
      );
      const link = linkPath(await firstMailTo('late@example.test'));
      await t.deps.database.db
        .update(accountTokens)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(accountTokens.id, link.id));
      const late = new UiClient(t.app, PORTAL_HOST);
      const page = await late.get(link.path);
      assert.equal(page.statusCode, 410);
      assert.match(pageText(page.body), /This link no longer works.*Ask for a new link/);
      await late.get('/login');
      assert.equal((await late.post(link.path, { password: 'pw-late-owner-0123' })).statusCode, 410);
      assert.equal((await login('late@example.test', 'pw-late-owner-0123')).statusCode, 401);
      // A forged secret under a live id is no better.
      const forged = await late.get(`/password/set/${link.id}.${'A'.repeat(43)}`);
      assert.equal(forged.statusCode, 410);
    });
  });

  describe(`workspace owner invitations without mail [${database}]`, () => {
    let t: TestApp;
    let key: string;

    before(async () => {
      t = await buildTestApp({ database });
      key = await purchaseKey(t);
    });
    after(() => t.close());

    it('provisions the workspace and says the invitation was not sent', async () => {
      const created = await portal(t.app, undefined, {
        method: 'POST',
        url: `${BASE}/workspaces`,
        headers: { authorization: `Bearer ${key}` },
        payload: { site_id: 'quiet', kind: 'static', plan: 'free', owner_email: 'quiet@example.test' },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(json(created).invitation, 'not_sent_mail_disabled');
      const owner = await findUserByLogin(t.deps.database.db, 'quiet@example.test');
      assert.ok(owner);
      assert.deepEqual(
        await t.deps.database.db.select().from(accountTokens).where(eq(accountTokens.userId, owner.id)),
        [],
      );
    });
  });
}
