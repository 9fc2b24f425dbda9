// Sign-up bot traps, through the real form at the shipped default (BLUME_SIGNUP_MIN_SECONDS=3): a
// filled honeypot, a form sent too fast, and a missing, forged, foreign or day-old stamp are each
// refused with the form shown again (and no account made); a person's form goes through.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { count, eq } from 'drizzle-orm';
import { communityHost, makeCommunity } from '../../../test/factories/forum.js';
import { buildTestApp, signIn, type TestApp } from '../../../test/helpers/app.js';
import { UiClient } from '../../../test/helpers/forum-ui.js';
import { forumMembers } from '../tables.js';
import { HONEYPOT_FIELD, signupStamp, STAMP_FIELD } from './signup-trap.js';

describe('forum sign-up traps', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({
      database: 'pglite',
      env: { BLUME_SIGNUP_MIN_SECONDS: '3', BLUME_RATE_LOGIN_PER_MINUTE: '1000' },
    });
    await makeCommunity(t.app, await signIn(t.app, 'owner'), 'club');
  });
  after(() => t.close());

  const secret = () => t.app.deps.config.secretKey;
  const members = async (username: string) =>
    (
      await t.app.deps.database.db.select({ n: count() }).from(forumMembers).where(eq(forumMembers.username, username))
    )[0]!.n;
  const signUp = async (username: string, extra: Record<string, string>) => {
    const client = new UiClient(t.app, communityHost('club'));
    const form = await client.get('/signup');
    const shown = /name="shown_at" value="([^"]+)"/.exec(form.body)?.[1];
    assert.ok(shown, 'the form carries a stamp');
    assert.match(
      form.body,
      /<div class="trap" aria-hidden="true"><label for="website">Leave this field empty<\/label><input type="text" id="website" name="website" value="" tabindex="-1" autocomplete="off"><\/div>/,
    );
    return client.post('/signup', {
      username,
      email: `${username}@example.test`,
      password: `${username}-password-1`,
      [STAMP_FIELD]: shown,
      ...extra,
    });
  };
  const siteId = async () => (await t.app.services.sites.get('club'))!.id;

  it('lets a person through whose form was open long enough', async () => {
    const response = await signUp('patient', {
      [STAMP_FIELD]: signupStamp(secret(), await siteId(), Date.now() - 5_000),
    });
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(await members('patient'), 1);
  });

  it('refuses a form sent at once, a filled honeypot, and missing, forged, foreign or old stamps', async () => {
    const site = await siteId();
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['hasty', {}, /faster than anyone types/],
      [
        'potter',
        { [HONEYPOT_FIELD]: 'https://spam.example', [STAMP_FIELD]: signupStamp(secret(), site, Date.now() - 5_000) },
        /leave the hidden field empty/,
      ],
      ['nostamp', { [STAMP_FIELD]: '' }, /The form expired/],
      ['forger', { [STAMP_FIELD]: `${Date.now() - 5_000}.not-a-signature` }, /The form expired/],
      ['foreigner', { [STAMP_FIELD]: signupStamp(secret(), 'another-site', Date.now() - 5_000) }, /The form expired/],
      ['sleeper', { [STAMP_FIELD]: signupStamp(secret(), site, Date.now() - 25 * 3600 * 1000) }, /The form expired/],
    ];
    for (const [username, extra, message] of cases) {
      const response = await signUp(username, extra);
      assert.equal(response.statusCode, 422, `${username}: ${response.statusCode}`);
      assert.match(response.body, message, username);
      assert.match(response.body, new RegExp(`value="${username}"`), 'what was typed stays in the form');
      assert.match(response.body, /name="shown_at" value="\d+\.[A-Za-z0-9_-]+"/, 'with a fresh stamp');
      assert.equal(await members(username), 0, `${username} got no account`);
    }
  });
});
