// A platform with some of everything, made through the APIs (backup and restore tests): a static
// site with a promoted release (files with compressed variants), a community with a forum, topics,
// posts, a like and an uploaded file, CMS entries with media, and help desk tickets with replies.
// `probes` are the GET requests whose answers must be the same on any copy of it.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { cmsApi, mintApiKey } from './cms.js';
import { addMember, communityHost, forumApi, makeCommunity, mintForumToken } from './forum.js';
import { helpdeskApi } from './helpdesk.js';
import { json, PORTAL_HOST, signIn } from '../helpers/app.js';
import { multipartBody, siteArchive } from '../helpers/archives.js';
import { basicAuth, createStaticSite, deployApi, deployRelease } from '../helpers/deploy.js';
import { ONE_PIXEL_PNG } from '../helpers/images.js';

export interface Probe {
  host: string;
  url: string;
  headers: Record<string, string>;
}

export interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

const PAGE = `<!doctype html><title>Home</title>${'<p>Backed up, restored, the same bytes.</p>\n'.repeat(40)}`;

/** Fills the app's installation; answers the requests that read all of it back. */
export async function fillInstance(app: FastifyInstance): Promise<Probe[]> {
  const owner = await signIn(app, 'owner');

  const deployToken = await createStaticSite(app, owner, 'home');
  const first = await deployRelease(
    app,
    deployToken,
    'home',
    await siteArchive({ 'index.html': PAGE, 'about/index.html': '<h1>About</h1>' }),
  );
  const second = await deployRelease(
    app,
    deployToken,
    'home',
    await siteArchive({ 'index.html': `${PAGE}<p>v2</p>`, 'style.css': 'body{margin:0}\n'.repeat(30) }),
  );
  assert.equal(
    (await deployApi(app, deployToken, 'POST', '/api/deploy/home/promote', { release: first })).statusCode,
    200,
  );
  assert.equal(
    (await deployApi(app, deployToken, 'POST', '/api/deploy/home/promote', { release: second })).statusCode,
    200,
  );
  const previewPassword = json<{ aliases: { auth: string } }>(
    await deployApi(app, deployToken, 'GET', '/api/deploy/home/releases'),
  ).aliases.auth;

  await makeCommunity(app, owner, 'club', 'business');
  const forumToken = await mintForumToken(app, 'club', 'owner', owner.password);
  const forum = (method: 'POST', path: string, payload: object) =>
    forumApi(app, 'club', forumToken, { method, path, payload });
  assert.equal((await forum('POST', '/forums', { name: 'General', slug: 'general' })).statusCode, 201);
  const file = multipartBody('file', Buffer.from('notes kept with the backup\n'), 'notes.txt', 'text/plain');
  const uploaded = await forumApi(app, 'club', forumToken, {
    method: 'POST',
    path: '/uploads',
    payload: file.payload,
    headers: file.headers,
  });
  assert.equal(uploaded.statusCode, 201, uploaded.body);
  const topicIds: string[] = [];
  for (const title of ['Welcome', 'Backups', 'Restores']) {
    const topic = await forum('POST', '/topics', {
      forum_id: 'general',
      title,
      body: `About ${title.toLowerCase()}: ${json<{ markdown: string }>(uploaded).markdown}`,
    });
    assert.equal(topic.statusCode, 201, topic.body);
    topicIds.push(json<{ id: string }>(topic).id);
  }
  const reply = await forum('POST', `/topics/${topicIds[0]}/posts`, { body: 'A reply with **bold** text.' });
  assert.equal(reply.statusCode, 201, reply.body);
  const fan = await addMember(app, 'club', 'fan');
  const liked = await forumApi(app, 'club', fan.token, {
    method: 'POST',
    path: `/posts/${json<{ id: string }>(reply).id}/like`,
  });
  assert.ok(liked.statusCode < 300, liked.body);

  const cmsKey = await mintApiKey(app, owner, 'club', ['cms-write']);
  const image = multipartBody('file', ONE_PIXEL_PNG, 'cover.png', 'image/png');
  const media = await cmsApi(app, 'club', cmsKey, {
    method: 'POST',
    path: '/media',
    payload: image.payload,
    headers: image.headers,
  });
  assert.equal(media.statusCode, 201, media.body);
  const mediaUrl = json<{ url: string }>(media).url;
  for (const [slug, status] of [
    ['launch', 'published'],
    ['plans', 'draft'],
  ] as const) {
    const entry = await cmsApi(app, 'club', cmsKey, {
      method: 'POST',
      path: '/entries/articles',
      payload: { slug, status, data: { title: `The ${slug}`, cover_image: mediaUrl } },
    });
    assert.equal(entry.statusCode, 201, entry.body);
  }

  const helpdeskKey = await mintApiKey(app, owner, 'club', ['helpdesk-write']);
  const ticketIds: string[] = [];
  for (const subject of ['Cannot log in', 'Invoice missing']) {
    const opened = await helpdeskApi(
      app,
      'club',
      { key: helpdeskKey },
      {
        method: 'POST',
        path: '/tickets',
        payload: { subject, body: `${subject}, please help.`, requester: { email: 'erin@example.test', name: 'Erin' } },
      },
    );
    assert.equal(opened.statusCode, 201, opened.body);
    ticketIds.push(json<{ id: string }>(opened).id);
  }
  const answered = await helpdeskApi(
    app,
    'club',
    { key: helpdeskKey },
    { method: 'POST', path: `/tickets/${ticketIds[0]}/replies`, payload: { body: 'Try the reset link.' } },
  );
  assert.equal(answered.statusCode, 201, answered.body);

  const club = communityHost('club');
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  return [
    { host: PORTAL_HOST, url: '/api/sites', headers: { cookie: owner.cookie } },
    { host: PORTAL_HOST, url: '/api/deploy/home/releases', headers: bearer(deployToken) },
    { host: 'home.blume.test', url: '/', headers: {} },
    { host: 'home.blume.test', url: '/', headers: { 'accept-encoding': 'gzip' } },
    { host: 'home.blume.test', url: '/style.css', headers: { 'accept-encoding': 'br' } },
    { host: `r-${first}--home.blume.test`, url: '/about/', headers: { authorization: basicAuth(previewPassword) } },
    { host: club, url: '/api/forum/v1/forums', headers: { 'authentication-token': forumToken } },
    { host: club, url: '/api/forum/v1/topics?forum_id=general', headers: { 'authentication-token': forumToken } },
    ...topicIds.map((id) => ({
      host: club,
      url: `/api/forum/v1/topics/${id}/posts`,
      headers: { 'authentication-token': forumToken },
    })),
    { host: club, url: json<{ url: string }>(uploaded).url, headers: {} },
    { host: club, url: '/api/cms/v1/entries/articles?status=any', headers: bearer(cmsKey) },
    { host: club, url: '/api/cms/v1/media', headers: bearer(cmsKey) },
    { host: club, url: mediaUrl, headers: {} },
    { host: club, url: '/api/helpdesk/v1/tickets', headers: bearer(helpdeskKey) },
    ...ticketIds.map((id) => ({
      host: club,
      url: `/api/helpdesk/v1/tickets/${id}/replies`,
      headers: bearer(helpdeskKey),
    })),
  ];
}

/** Asks every probe through `send`, in order. */
export async function askAll(
  probes: Probe[],
  send: (probe: Probe) => Promise<Answer>,
): Promise<Array<Answer & { probe: string }>> {
  const answers: Array<Answer & { probe: string }> = [];
  for (const probe of probes) answers.push({ probe: `${probe.host}${probe.url}`, ...(await send(probe)) });
  return answers;
}
