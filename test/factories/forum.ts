// Factories for community tests: a community site owned by an account, members with forum tokens,
// and `forumApi` to call the Forum API on the site's host.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { SiteRow } from '../../src/core/sites/tables.js';
import { createSite } from '../../src/core/sites/service.js';
import { createMember } from '../../src/forum/members.js';
import type { ForumMemberRow } from '../../src/forum/tables.js';
import { buildTestApp, PORTAL_HOST, signIn, type Actor, type TestApp } from '../helpers/app.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from '../helpers/databases.js';

export const FORUM_BASE = '/api/forum/v1';

export function communityHost(site: string): string {
  return `${site}.${PORTAL_HOST}`;
}

export async function makeCommunity(
  app: FastifyInstance,
  owner: Actor | null,
  id: string,
  plan: SiteRow['plan'] = 'pro',
): Promise<SiteRow> {
  const site = await createSite(app.deps.database.db, owner?.user ?? null, { id, kind: 'community', plan });
  await app.services.epochs.announce();
  return site;
}

export interface ForumActor {
  member: ForumMemberRow;
  token: string;
  password: string;
}

/** Calls the Forum API of `site`; `path` is relative to /api/forum/v1. */
export function forumApi(
  app: FastifyInstance,
  site: string,
  token: string | undefined,
  options: Omit<InjectOptions, 'url'> & { path: string },
): Promise<LightMyRequestResponse> {
  const { path, headers, ...rest } = options;
  return app.inject({
    ...rest,
    url: `${FORUM_BASE}${path}`,
    headers: { host: communityHost(site), ...(token ? { 'authentication-token': token } : {}), ...headers },
  } as InjectOptions);
}

export async function mintForumToken(
  app: FastifyInstance,
  site: string,
  login: string,
  password: string,
): Promise<string> {
  const response = await forumApi(app, site, undefined, {
    method: 'POST',
    path: '/auth/tokens',
    payload: { login, password, name: 'test' },
  });
  if (response.statusCode !== 201) throw new Error(`token minting failed: ${response.body}`);
  return (response.json() as { token: string }).token;
}

/** What `buildClub` makes. */
export interface ClubTest {
  t: TestApp;
  owner: Actor;
  admin: string;
}

/**
 * The start of most forum tests: an app whose login and posting limits stay out of the way, its
 * owner, and the community `club` with the owner's forum token (an admin's).
 */
export async function buildClub(database: DatabaseKind): Promise<ClubTest> {
  const t = await buildTestApp({
    database,
    env: { BLUME_RATE_LOGIN_PER_MINUTE: '1000', BLUME_RATE_POSTS_PER_MINUTE: '1000' },
  });
  const owner = await signIn(t.app, 'owner');
  await makeCommunity(t.app, owner, 'club');
  return { t, owner, admin: await mintForumToken(t.app, 'club', 'owner', owner.password) };
}

export async function addMember(
  app: FastifyInstance,
  site: string,
  username: string,
  role: ForumMemberRow['role'] = 'member',
): Promise<ForumActor> {
  const password = `pw-${username}-0123456789`;
  const member = await createMember(app.deps.database.db, site, {
    username,
    email: `${username}@members.test`,
    password,
    role,
  });
  return { member, password, token: await mintForumToken(app, site, username, password) };
}

/** Two app nodes sharing one database and nothing else, with the community `site` and its owner's forum token. */
export interface CommunityOnTwoNodes {
  shared: TestDatabase;
  a: TestApp;
  b: TestApp;
  /** The owner's forum token. */
  admin: string;
  close(): Promise<void>;
}

export async function communityOnTwoNodes(database: DatabaseKind, site: string): Promise<CommunityOnTwoNodes> {
  const shared = await createTestDatabase(database);
  const a = await buildTestApp({ database, sharedDatabase: shared });
  const b = await buildTestApp({ database, sharedDatabase: shared });
  const owner = await signIn(a.app, 'owner');
  await makeCommunity(a.app, owner, site);
  const admin = await mintForumToken(a.app, site, 'owner', owner.password);
  return {
    shared,
    a,
    b,
    admin,
    async close() {
      await a.close();
      await b.close();
      await shared.drop();
    },
  };
}
