// The MCP tool server driven by the SDK's own Client against a running Blume: over stdio (the real
// `blume mcp` process, reaching Blume over the network) and over Streamable HTTP at /mcp. An agent
// uploads a site, reads its preview, is refused a promote without a confirmation id, promotes, rolls
// back, builds from Markdown, replies in the forum, saves (by slug too) and drafts a CMS entry, and
// triages, answers and drafts a reply to a help desk ticket. Every result's text carries its data;
// arguments are strict; lists page; creating calls take an idempotency key; a missing or refused
// credential is said (401 over HTTP, `blume_status` over stdio); read-only mode lists read tools;
// elicitation asks the human; the tool lists follow the credentials, and no credential ever appears
// in what the server says.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMember } from '../forum/members.js';
import { mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { helpdeskApi } from '../../test/factories/helpdesk.js';
import { aiSettings, AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../../test/helpers/ai-provider.js';
import { buildTestApp, json, portal, signIn, type TestApp } from '../../test/helpers/app.js';
import { testDatabases } from '../../test/helpers/databases.js';
import { basicAuth } from '../../test/helpers/deploy.js';
import { freePort } from '../../test/helpers/ports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const DEPLOY_TOOLS = [
  'deploy_build_source',
  'deploy_connect_repository',
  'deploy_get_build',
  'deploy_list_releases',
  'deploy_promote',
  'deploy_rollback',
  'deploy_stage',
  'deploy_upload',
];
const FORUM_TOOLS = ['forum_create_topic', 'forum_get_topic', 'forum_list_forums', 'forum_list_topics', 'forum_reply'];
const CMS_READ_TOOLS = ['cms_get_entry', 'cms_list_content_types', 'cms_list_entries'];
const CMS_TOOLS = [...CMS_READ_TOOLS, 'cms_generate_draft', 'cms_save_entry'].sort();
const HELPDESK_READ_TOOLS = ['helpdesk_get_ticket', 'helpdesk_list_tickets'];
const HELPDESK_TOOLS = [...HELPDESK_READ_TOOLS, 'helpdesk_draft_reply', 'helpdesk_reply', 'helpdesk_triage'].sort();
const ALL_TOOLS = [...DEPLOY_TOOLS, ...FORUM_TOOLS, ...CMS_TOOLS, ...HELPDESK_TOOLS].sort();
const READ_ONLY_TOOLS = [
  'cms_get_entry',
  'cms_list_content_types',
  'cms_list_entries',
  'deploy_get_build',
  'deploy_list_releases',
  'forum_get_topic',
  'forum_list_forums',
  'forum_list_topics',
  'helpdesk_get_ticket',
  'helpdesk_list_tickets',
];
const LIST_TOOLS = [
  'cms_list_content_types',
  'cms_list_entries',
  'deploy_get_build',
  'deploy_list_releases',
  'forum_get_topic',
  'forum_list_forums',
  'forum_list_topics',
  'helpdesk_get_ticket',
  'helpdesk_list_tickets',
];
/** Tools that reach past this Blume: a customer's mailbox, the AI provider, a git host. */
const OPEN_WORLD_TOOLS = ['cms_generate_draft', 'deploy_connect_repository', 'helpdesk_draft_reply', 'helpdesk_reply'];
const CREATING_TOOLS = [
  'cms_generate_draft',
  'cms_save_entry',
  'deploy_build_source',
  'deploy_upload',
  'forum_create_topic',
  'forum_reply',
  'helpdesk_draft_reply',
  'helpdesk_reply',
];

type Structured = Record<string, unknown> & { undo?: { tool: string; arguments: Record<string, unknown> } | null };

/** The confirmation id a refusal answers, in its `_meta` (and its text). */
function confirmationId(result: CallToolResult): string {
  const id = result._meta?.confirmation_id;
  assert.equal(typeof id, 'string', textOf(result));
  assert.ok(textOf(result).includes(`confirmation_id: "${id as string}"`), 'the text carries the confirmation id');
  return id as string;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

for (const database of testDatabases) {
  describe(`MCP tool server [${database}]`, () => {
    let t: TestApp;
    let origin: string;
    let filesDir: string;
    let deployToken: string;
    let forumToken: string;
    let writeKey: string;
    let readKey: string;
    let deskReadKey: string;
    let freeKey: string;
    let ai: AiProviderServer;
    const said: string[] = [];
    let sessions = 0;

    before(async () => {
      const port = await freePort();
      origin = `http://localhost:${port}`;
      filesDir = await mkdtemp(path.join(tmpdir(), 'blume-mcp-files-'));
      t = await buildTestApp({
        database,
        env: { ...AI_PROVIDER_ENV, BLUME_PUBLIC_URL: origin, BLUME_MCP_FILES_DIR: filesDir },
      });
      await t.app.listen({ port, host: '127.0.0.1' });
      await t.app.deploy.builds.start();
      const owner = await signIn(t.app, 'owner');
      assert.equal(
        (await portal(t.app, owner, { method: 'POST', url: '/api/sites', payload: { id: 'hello', kind: 'static' } }))
          .statusCode,
        201,
      );
      deployToken = json<{ token: string }>(
        await portal(t.app, owner, {
          method: 'POST',
          url: '/api/sites/hello/deploy-tokens',
          payload: { name: 'agent' },
        }),
      ).token;
      await makeCommunity(t.app, owner, 'community', 'business');
      await makeCommunity(t.app, owner, 'cheap', 'free');
      writeKey = await mintApiKey(t.app, owner, 'community', ['cms-write', 'helpdesk-write']);
      readKey = await mintApiKey(t.app, owner, 'community', ['cms-read']);
      deskReadKey = await mintApiKey(t.app, owner, 'community', ['helpdesk-read']);
      // AI drafting (CMS entries, ticket replies) against a local server speaking the provider's wire format.
      ai = await startAiProvider();
      const aiOn = aiSettings(ai, 'helper-1');
      assert.equal(
        (await portal(t.app, owner, { method: 'PUT', url: '/api/instances/community/env', payload: aiOn })).statusCode,
        200,
      );
      await portal(t.app, owner, { method: 'POST', url: '/api/instances/community/restart' });
      freeKey = await mintApiKey(t.app, owner, 'cheap', ['admin']);
      await createMember(t.app.deps.database.db, 'community', {
        username: 'agent',
        email: 'agent@members.test',
        password: 'pw-agent-0123456789',
        role: 'admin',
      });
      const community = { host: `community.localhost:${port}` };
      const minted = await t.app.inject({
        method: 'POST',
        url: '/api/forum/v1/auth/tokens',
        headers: community,
        payload: { login: 'agent', password: 'pw-agent-0123456789' },
      });
      forumToken = json<{ token: string }>(minted).token;
      const forum = await t.app.inject({
        method: 'POST',
        url: '/api/forum/v1/forums',
        headers: { ...community, 'authentication-token': forumToken },
        payload: { name: 'General', slug: 'general', visibility: 'public' },
      });
      assert.equal(forum.statusCode, 201, forum.body);
      // Over HTTP each site reads only its own subfolder of BLUME_MCP_FILES_DIR.
      for (const [name, html] of [
        ['hello/v1', 'Hello one'],
        ['hello/v2', 'Hello two'],
        ['other/secret', 'Another tenant'],
      ] as const) {
        await mkdir(path.join(filesDir, name), { recursive: true });
        await writeFile(path.join(filesDir, name, 'index.html'), `<!doctype html><title>${html}</title><p>${html}</p>`);
      }
      await mkdir(path.join(filesDir, 'hello', 'docs'));
      await writeFile(path.join(filesDir, 'hello', 'docs', 'index.md'), '# Agent docs\n\nWritten by an agent.\n');
    });
    after(async () => {
      await t.close();
      await ai.close();
      await rm(filesDir, { recursive: true, force: true });
      for (const secret of [deployToken, forumToken, writeKey, readKey]) {
        assert.ok(
          !said.some((text) => text.includes(secret)),
          "a credential appeared in a tool result, an error or the server's output",
        );
      }
    });

    async function call(
      client: Client,
      name: string,
      args: Record<string, unknown> = {},
    ): Promise<CallToolResult & { structuredContent?: Structured }> {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult & {
        structuredContent?: Structured;
      };
      said.push(JSON.stringify(result));
      return result;
    }

    async function edgeText(host: string, headers: Record<string, string> = {}): Promise<string> {
      const response = await t.app.inject({ method: 'GET', url: '/', headers: { host, ...headers } });
      return `${response.statusCode} ${response.body}`;
    }

    /** Calls a production change as a careful agent does: refused, then confirmed with the id it answered. */
    async function confirmed(
      client: Client,
      name: string,
      args: Record<string, unknown>,
      said: RegExp,
    ): Promise<CallToolResult & { structuredContent?: Structured }> {
      const refused = await call(client, name, args);
      assert.equal(refused.isError, true, textOf(refused));
      assert.match(textOf(refused), said);
      const id = confirmationId(refused);
      assert.match(id, /^cf_/);
      const done = await call(client, name, { ...args, confirm: true, confirmation_id: id });
      assert.equal(done.isError, undefined, textOf(done));
      return done;
    }

    /** What every transport must do, from a client holding every credential. */
    async function agentSession(client: Client, folder: (name: string) => string): Promise<void> {
      const slug = `launch-${++sessions}`;
      const tools = (await client.listTools()).tools;
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ALL_TOOLS);
      assert.equal(tools.length, 23);
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      for (const name of ['deploy_promote', 'deploy_rollback', 'deploy_upload', 'deploy_connect_repository'])
        assert.equal(byName.get(name)!.annotations?.destructiveHint, true, name);
      assert.equal(byName.get('cms_save_entry')!.annotations?.destructiveHint, true, 'an update replaces the data');
      assert.deepEqual(
        tools
          .filter((tool) => tool.annotations?.readOnlyHint)
          .map((tool) => tool.name)
          .sort(),
        READ_ONLY_TOOLS,
      );
      assert.equal(byName.get('helpdesk_triage')!.annotations?.idempotentHint, true);
      assert.deepEqual(
        tools
          .filter((tool) => tool.annotations?.openWorldHint)
          .map((tool) => tool.name)
          .sort(),
        OPEN_WORLD_TOOLS,
      );
      for (const tool of tools) {
        assert.ok(tool.outputSchema, tool.name);
        assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments`);
        const properties = Object.keys(tool.inputSchema.properties ?? {});
        assert.equal(properties.includes('idempotency_key'), CREATING_TOOLS.includes(tool.name), tool.name);
        if (LIST_TOOLS.includes(tool.name))
          assert.ok(properties.includes('page') && properties.includes('page_size'), `${tool.name} pages`);
      }
      assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);

      // Upload: a preview, not live; a retry with the same idempotency key makes no second release.
      const key = `upload-${database}-${sessions}`;
      const uploaded = await call(client, 'deploy_upload', { path: folder('v1'), idempotency_key: key });
      assert.equal(uploaded.isError, undefined, textOf(uploaded));
      const first = (uploaded.structuredContent!.release as { id: string }).id;
      const retried = await call(client, 'deploy_upload', { path: folder('v1'), idempotency_key: key });
      assert.equal((retried.structuredContent!.release as { id: string }).id, first, textOf(retried));
      assert.match(textOf(retried), /^Already done/);
      const reused = await call(client, 'deploy_upload', { path: folder('v2'), idempotency_key: key });
      assert.equal(reused.isError, true);
      assert.match(textOf(reused), /already used for a deploy_upload call with other arguments/);
      const previewUrl = new URL(uploaded.structuredContent!.preview_url as string);
      const auth = uploaded.structuredContent!.preview_auth as { user: string; password: string };
      assert.equal(auth.user, 'preview');
      assert.match(await edgeText(previewUrl.host, { authorization: basicAuth(auth.password) }), /^200 .*Hello one/s);

      // Promote: refused without confirmation, saying what would go live and answering an id bound to
      // this release; confirm: true alone, or an id for another action, is refused too.
      const refused = await call(client, 'deploy_promote', { release: first });
      assert.equal(refused.isError, true);
      assert.match(
        textOf(refused),
        new RegExp(`make release ${first} .*live at http://hello\\.localhost:\\d+.*replacing`),
      );
      const id = confirmationId(refused);
      const bare = await call(client, 'deploy_promote', { release: first, confirm: true });
      assert.equal(bare.isError, true);
      assert.match(textOf(bare), /confirm: true needs the confirmation_id/);
      const otherRelease = (
        (await call(client, 'deploy_upload', { path: folder('v2') })).structuredContent!.release as { id: string }
      ).id;
      const misused = await call(client, 'deploy_promote', {
        release: otherRelease,
        confirm: true,
        confirmation_id: id,
      });
      assert.equal(misused.isError, true);
      assert.match(textOf(misused), /given for another action/);
      const promoted = await call(client, 'deploy_promote', { release: first, confirm: true, confirmation_id: id });
      assert.equal(promoted.isError, undefined, textOf(promoted));
      const host = new URL(promoted.structuredContent!.production_url as string).host;
      assert.match(await edgeText(host), /Hello one/);
      const replayed = await call(client, 'deploy_promote', { release: first, confirm: true, confirmation_id: id });
      assert.equal(replayed.isError, true, 'an id stops holding once production changed');

      // A production deploy in one call, undone by the rollback it answers.
      const deployed = await confirmed(
        client,
        'deploy_upload',
        { path: folder('v2'), promote: true },
        new RegExp(`replacing release ${first}`),
      );
      assert.equal(deployed.structuredContent!.live, true, textOf(deployed));
      assert.deepEqual(deployed.structuredContent!.undo!.tool, 'deploy_rollback');
      assert.match(await edgeText(host), /Hello two/);

      const refusedRollback = await call(client, 'deploy_rollback', {});
      assert.match(textOf(refusedRollback), new RegExp(`return http://hello\\.localhost:\\d+ to release ${first}`));
      assert.match(await edgeText(host), /Hello two/, 'a refused rollback changes nothing');
      const rolledBack = await call(client, 'deploy_rollback', {
        confirm: true,
        confirmation_id: confirmationId(refusedRollback),
      });
      assert.equal(rolledBack.structuredContent!.live, first, textOf(rolledBack));
      assert.equal(rolledBack.structuredContent!.undo!.tool, 'deploy_promote');
      assert.match(await edgeText(host), /Hello one/);

      // Build from Markdown: a new release, not live.
      const built = await call(client, 'deploy_build_source', { path: folder('docs') });
      assert.equal(built.isError, undefined, textOf(built));
      const builtRelease = built.structuredContent!.release as { id: string; source: string };
      assert.equal(builtRelease.source, 'markdown');
      assert.match(
        await edgeText(new URL(built.structuredContent!.preview_url as string).host, {
          authorization: basicAuth(auth.password),
        }),
        /Agent docs/,
      );

      // Releases page, and every page's text names the live release, wherever it falls.
      const releases = await call(client, 'deploy_list_releases', { page_size: 1 });
      assert.equal((releases.structuredContent!.aliases as { live: string }).live, first);
      assert.equal((releases.structuredContent!.releases as unknown[]).length, 1);
      assert.equal((releases.structuredContent!.live_release as { id: string }).id, first);
      assert.match(textOf(releases), new RegExp(`live release ${first} .*call deploy_list_releases again .*page: 2`));
      const lastPage = (releases.structuredContent!.pagination as { total_pages: number }).total_pages;
      const last = await call(client, 'deploy_list_releases', { page: lastPage, page_size: 1 });
      assert.match(textOf(last), /this is the last page/);

      // Forum: start a topic, reply (once, whatever the retries), read it back: the text has the bodies.
      const forums = await call(client, 'forum_list_forums', { page_size: 50 });
      const general = (forums.structuredContent!.forums as Array<{ id: string; slug: string }>).find(
        (f) => f.slug === 'general',
      )!;
      assert.match(textOf(forums), /"slug":"general"/);
      const topic = await call(client, 'forum_create_topic', {
        forum_id: general.id,
        title: 'Release notes',
        body: 'What changed.',
      });
      const topicId = (topic.structuredContent!.topic as { id: string }).id;
      const replyKey = `reply-${database}-${sessions}`;
      const reply = await call(client, 'forum_reply', {
        topic_id: topicId,
        body: 'Deployed by an agent.',
        idempotency_key: replyKey,
      });
      assert.equal(reply.isError, undefined, textOf(reply));
      const again = await call(client, 'forum_reply', {
        topic_id: topicId,
        body: 'Deployed by an agent.',
        idempotency_key: replyKey,
      });
      assert.deepEqual(again.structuredContent!.post, reply.structuredContent!.post);
      const read = await call(client, 'forum_get_topic', { topic_id: topicId });
      assert.equal(read.isError, undefined, textOf(read));
      assert.match(textOf(read), /What changed\..*Deployed by an agent\./s, 'the text carries the post bodies');
      assert.equal((read.structuredContent!.posts as unknown[]).length, 2, 'the retried reply was posted once');
      // Two calls racing with one key: one reply, the other call answers it or says it is still running.
      const raceKey = `race-${database}-${sessions}`;
      const raced = await Promise.all(
        [1, 2].map(() => call(client, 'forum_reply', { topic_id: topicId, body: 'Raced.', idempotency_key: raceKey })),
      );
      assert.ok(raced.some((result) => result.isError === undefined));
      for (const result of raced.filter((r) => r.isError)) assert.match(textOf(result), /still running/);
      const afterRace = await call(client, 'forum_get_topic', { topic_id: topicId, page_size: 100 });
      assert.equal(
        (afterRace.structuredContent!.posts as Array<{ body: string }>).filter((post) => post.body === 'Raced.').length,
        1,
        'one reply for the key',
      );
      const paged = await call(client, 'forum_get_topic', { topic_id: topicId, page_size: 1 });
      assert.match(textOf(paged), /page 1 of 3 .*call forum_get_topic again with the same arguments and page: 2/);
      const topics = await call(client, 'forum_list_topics', { forum_id: general.id, page: 1, page_size: 100 });
      assert.match(textOf(topics), /Release notes/);

      // Content: save a draft, publish it by id, update it by slug (the data is replaced), read it by slug.
      const saved = await call(client, 'cms_save_entry', {
        type: 'articles',
        data: { title: 'Launch', excerpt: 'Soon.' },
        status: 'draft',
      });
      assert.equal(saved.isError, undefined, textOf(saved));
      const entry = saved.structuredContent!.entry as { id: string; slug: string };
      const published = await call(client, 'cms_save_entry', {
        type: 'articles',
        id_or_slug: entry.id,
        slug,
        data: { title: 'Launch day', excerpt: 'Today.' },
        status: 'published',
      });
      assert.equal((published.structuredContent!.entry as { status: string }).status, 'published', textOf(published));
      const bySlug = await call(client, 'cms_save_entry', {
        type: 'articles',
        id_or_slug: slug,
        data: { title: 'Launch day, again' },
      });
      assert.equal(bySlug.isError, undefined, textOf(bySlug));
      assert.equal((bySlug.structuredContent!.entry as { id: string }).id, entry.id);
      assert.deepEqual(bySlug.structuredContent!.dropped_fields, ['excerpt']);
      assert.match(textOf(bySlug), /its data was replaced, dropping excerpt/);
      const got = await call(client, 'cms_get_entry', { type: 'articles', id_or_slug: slug });
      assert.deepEqual((got.structuredContent!.entry as { data: Record<string, unknown> }).data, {
        title: 'Launch day, again',
      });
      assert.match(textOf(got), /"data":\{"title":"Launch day, again"\}/, 'the text carries the data');
      const listedEntries = await call(client, 'cms_list_entries', {
        type: 'articles',
        filter: { title: 'Launch day, again' },
        page_size: 5,
      });
      assert.match(textOf(listedEntries), /Launch day, again/);
      const typesPage = await call(client, 'cms_list_content_types', { page_size: 1 });
      assert.equal((typesPage.structuredContent!.content_types as unknown[]).length, 1);
      assert.match(textOf(typesPage), /call cms_list_content_types again with the same arguments and page: 2/);

      // Content: an entry drafted by the site's AI provider, saved as a draft.
      ai.answer = JSON.stringify({ title: 'Spring sale', body: 'Everything is 20% off.' });
      const drafted = await call(client, 'cms_generate_draft', {
        type: 'articles',
        prompt: 'Announce the spring sale',
        save_as_draft: true,
      });
      assert.equal(drafted.isError, undefined, textOf(drafted));
      assert.equal(
        (drafted.structuredContent!.entry as { status: string; data: { title: string } }).data.title,
        'Spring sale',
      );
      assert.match(textOf(drafted), /Everything is 20% off\./);
      assert.match(JSON.stringify(ai.calls.at(-1)!.body), /Announce the spring sale/);

      // Help desk: find the ticket, read its thread, note, triage, draft a reply that is not sent.
      const subject = `Printer jammed ${sessions}`;
      const opened = await helpdeskApi(
        t.app,
        'community',
        { key: writeKey },
        {
          method: 'POST',
          path: '/tickets',
          headers: { host: `community.${new URL(origin).host}` },
          payload: { subject, body: 'Paper everywhere.', requester: { email: 'pat@example.test', name: 'Pat' } },
        },
      );
      assert.equal(opened.statusCode, 201, opened.body);
      const listed = await call(client, 'helpdesk_list_tickets', {
        q: 'printer',
        status: 'new,open',
        category_id: 'none',
        assignee_id: 'none',
      });
      assert.equal(listed.isError, undefined, textOf(listed));
      const ticket = (listed.structuredContent!.tickets as Array<{ id: string; number: number; subject: string }>).find(
        (row) => row.subject === subject,
      )!;
      assert.ok(ticket, textOf(listed));
      assert.ok(textOf(listed).includes(subject));
      const closedOnly = await call(client, 'helpdesk_list_tickets', { q: 'printer', status: 'closed' });
      assert.deepEqual(closedOnly.structuredContent!.tickets, [], 'the status filter applies');
      const noted = await call(client, 'helpdesk_reply', {
        ticket_id: String(ticket.number),
        body: 'Checked the tray.',
        internal: true,
      });
      assert.equal((noted.structuredContent!.entry as { internal: boolean }).internal, true, textOf(noted));
      const triaged = await call(client, 'helpdesk_triage', {
        ticket_id: ticket.id,
        status: 'pending',
        priority: 'high',
        tags: ['hardware'],
      });
      assert.equal(triaged.isError, undefined, textOf(triaged));
      const changed = triaged.structuredContent!.ticket as {
        status: string;
        priority: string;
        tags: string[];
        sla: { paused: boolean };
      };
      assert.deepEqual(
        [changed.status, changed.priority, changed.tags, changed.sla.paused],
        ['pending', 'high', ['hardware'], true],
      );
      const nothing = await call(client, 'helpdesk_triage', { ticket_id: ticket.id });
      assert.equal(nothing.isError, true);
      assert.match(textOf(nothing), /Nothing to change/);
      ai.answer = 'Hi Pat, please open the back cover.';
      const replyDraft = await call(client, 'helpdesk_draft_reply', {
        ticket_id: ticket.id,
        instructions: 'Be brief.',
      });
      assert.equal(
        (replyDraft.structuredContent!.draft as { body: string }).body,
        'Hi Pat, please open the back cover.',
        textOf(replyDraft),
      );
      assert.match(textOf(replyDraft), /please open the back cover/);
      const thread = await call(client, 'helpdesk_get_ticket', { ticket_id: ticket.id });
      const entries = thread.structuredContent!.thread as Array<{ body: string; internal: boolean }>;
      assert.deepEqual(
        entries.map((entry) => [entry.body, entry.internal]),
        [
          ['Paper everywhere.', false],
          ['Checked the tray.', true],
        ],
        'the draft was not sent',
      );
      assert.match(textOf(thread), /Paper everywhere\..*Checked the tray\./s, 'the text carries the thread');
      assert.deepEqual(
        (await call(client, 'helpdesk_get_ticket', { ticket_id: ticket.id, internal: false })).structuredContent!
          .thread,
        [entries[0]],
      );

      // Bad input: each a clear tool error; an unknown argument is named with the valid ones.
      const badRelease = await call(client, 'deploy_promote', { release: 'NOT-A-RELEASE', confirm: true });
      assert.equal(badRelease.isError, true);
      assert.match(textOf(badRelease), /release/);
      const unknown = await call(client, 'deploy_launch_rockets', {});
      assert.equal(unknown.isError, true);
      const invalid = await call(client, 'helpdesk_triage', { ticket_id: 'x', priority: 'whenever' });
      assert.equal(invalid.isError, true);
      assert.match(textOf(invalid), /priority/, 'a schema error names the field');
      const filters = await call(client, 'cms_list_entries', { type: 'articles', filters: { title: 'x' } });
      assert.equal(filters.isError, true);
      assert.match(
        textOf(filters),
        /Unknown argument "filters": cms_list_entries takes type, filter, sort, status, page, page_size\./,
      );
      const state = await call(client, 'helpdesk_list_tickets', { state: 'closed' });
      assert.equal(state.isError, true);
      assert.match(
        textOf(state),
        /Unknown argument "state": helpdesk_list_tickets takes status, priority, category_id/,
      );
      const oldName = await call(client, 'helpdesk_get_ticket', { id: ticket.id });
      assert.match(textOf(oldName), /Unknown argument "id": helpdesk_get_ticket takes ticket_id, internal/);
      const missing = await call(client, 'deploy_upload', { path: folder('no-such-folder') });
      assert.equal(missing.isError, true);
      const refusedKind = await call(client, 'cms_get_entry', { type: 'articles', id_or_slug: 'no-such-entry' });
      assert.equal(refusedKind.isError, true);
      assert.match(textOf(refusedKind), /404 entry_not_found/);
    }

    it('over stdio: the real `blume mcp` process does the whole session with 23 tools', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/main.ts', 'mcp'],
        cwd: ROOT,
        stderr: 'pipe',
        env: {
          PATH: process.env.PATH ?? '',
          BLUME_URL: origin,
          BLUME_DEPLOY_TOKEN: deployToken,
          BLUME_TENANT_URL: `http://community.${new URL(origin).host}`,
          BLUME_FORUM_TOKEN: forumToken,
          BLUME_API_KEY: writeKey,
        },
      });
      let stderr = '';
      transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: 'blume-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        await agentSession(client, (name) => path.join(filesDir, 'hello', name));
      } finally {
        await client.close();
        said.push(stderr);
      }
    });

    function httpClient(headers: Record<string, string>): { client: Client; connect(): Promise<void> } {
      const client = new Client({ name: 'blume-test', version: '1.0.0' });
      const url = new URL('/mcp', origin.replace('localhost', '127.0.0.1'));
      const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
      return { client, connect: () => client.connect(transport) };
    }

    it("over Streamable HTTP at /mcp: the same session, files read only in the site's own folder", async () => {
      const { client, connect } = httpClient({
        authorization: `Bearer ${deployToken}`,
        'x-blume-tenant-url': `http://community.${new URL(origin).host}`,
        'authentication-token': forumToken,
        'x-blume-api-key': writeKey,
      });
      await connect();
      try {
        await agentSession(client, (name) => name);
        // Another site's folder, the server's disk and a path that does not exist all answer alike.
        const answers = new Set<string>();
        for (const given of ['../other/secret', '/etc', path.join(filesDir, 'other', 'secret'), 'no-such-folder']) {
          const refused = await call(client, 'deploy_upload', { path: given });
          assert.equal(refused.isError, true, given);
          answers.add(textOf(refused).replace(given, '<path>'));
        }
        assert.deepEqual(
          [...answers],
          [
            "No folder or .tar.gz archive at <path> in this site's folder (hello/ in BLUME_MCP_FILES_DIR on the server); nothing was uploaded.",
          ],
        );
      } finally {
        await client.close();
      }
    });

    it('lists tools by what the credentials can do: 8 with a deploy token, read tools with read keys, read-only tools in read-only mode', async () => {
      const tenant = `http://community.${new URL(origin).host}`;
      const cases: Array<[Record<string, string>, string[]]> = [
        [{ authorization: `Bearer ${deployToken}` }, DEPLOY_TOOLS],
        [{ 'x-blume-tenant-url': tenant, 'x-blume-api-key': readKey }, CMS_READ_TOOLS],
        [{ 'x-blume-tenant-url': tenant, 'x-blume-api-key': deskReadKey }, HELPDESK_READ_TOOLS],
        // An admin member's forum token: the forum, and the help desk as an agent.
        [
          { 'x-blume-tenant-url': tenant, 'authentication-token': forumToken },
          [...FORUM_TOOLS, ...HELPDESK_TOOLS].sort(),
        ],
        // A site whose plan has no Content API: the key works, the tools are not there, and blume_status says why.
        [
          { 'x-blume-tenant-url': `http://cheap.${new URL(origin).host}`, 'x-blume-api-key': freeKey },
          ['blume_status'],
        ],
        [
          {
            authorization: `Bearer ${deployToken}`,
            'x-blume-tenant-url': tenant,
            'authentication-token': forumToken,
            'x-blume-api-key': writeKey,
            'x-blume-read-only': 'true',
          },
          READ_ONLY_TOOLS,
        ],
      ];
      for (const [headers, expected] of cases) {
        const { client, connect } = httpClient(headers);
        await connect();
        try {
          assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), expected);
        } finally {
          await client.close();
        }
      }
    });

    it('refuses to promote a release whose preview fails unless forced, and to connect a repository without confirm', async () => {
      const { client, connect } = httpClient({ authorization: `Bearer ${deployToken}` });
      await connect();
      try {
        // A release whose page is gone from the blob store: its preview answers 5xx on /.
        await mkdir(path.join(filesDir, 'hello', 'broken'));
        const page = `<!doctype html><title>Broken ${database}</title><p>gone</p>`;
        await writeFile(path.join(filesDir, 'hello', 'broken', 'index.html'), page);
        const uploaded = await call(client, 'deploy_upload', { path: 'broken' });
        const release = (uploaded.structuredContent!.release as { id: string }).id;
        const hash = createHash('sha256').update(page).digest('hex');
        await rm(path.join(t.dataDir, 'blobs', 'sha256', hash.slice(0, 2)), { recursive: true, force: true });
        const before = ((await call(client, 'deploy_list_releases')).structuredContent!.aliases as { live: string })
          .live;
        const refused = await call(client, 'deploy_promote', { release, confirm: true });
        assert.equal(refused.isError, true);
        assert.match(
          textOf(refused),
          new RegExp(`Refused: the preview of release ${release} \\(.*\\) answers 5\\d\\d on /.*force: true`),
        );
        assert.equal(
          ((await call(client, 'deploy_list_releases')).structuredContent!.aliases as { live: string }).live,
          before,
          'nothing changed',
        );
        const forced = await confirmed(
          client,
          'deploy_promote',
          { release, force: true },
          new RegExp(`make release ${release}`),
        );
        assert.equal(forced.structuredContent!.undo!.tool, 'deploy_rollback');
        await confirmed(client, 'deploy_rollback', {}, /This would return/);

        const connected = await confirmed(
          client,
          'deploy_connect_repository',
          { repository: 'acme/site', branch: 'main', kind: 'static' },
          /This would connect acme\/site branch main as a static site to hello/,
        );
        assert.match(String(connected.structuredContent!.webhook_url), /\/api\/deploy\/hello\/github\/webhook$/);
        assert.ok(String(connected.structuredContent!.webhook_secret).length >= 32);
        assert.ok(textOf(connected).includes(String(connected.structuredContent!.webhook_secret)));
      } finally {
        await client.close();
      }
    });

    it('over stdio, says which group is missing and why when Blume is down or failing, and never prints a credential', async () => {
      // A port nobody listens on (Blume down), and a server answering every request 503 (Blume failing).
      const down = await freePort();
      const failing = createServer((_request, response) => {
        response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '5' }).end(
          JSON.stringify({
            type: 'urn:blume:problem:database_unavailable',
            title: 'The database is unavailable',
            status: 503,
            code: 'database_unavailable',
          }),
        );
      });
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/main.ts', 'mcp'],
        cwd: ROOT,
        stderr: 'pipe',
        env: {
          PATH: process.env.PATH ?? '',
          BLUME_URL: `http://127.0.0.1:${down}`,
          BLUME_DEPLOY_TOKEN: deployToken,
          BLUME_TENANT_URL: `http://127.0.0.1:${(failing.address() as { port: number }).port}`,
          BLUME_API_KEY: writeKey,
        },
      });
      let stderr = '';
      transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: 'blume-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        // Not silent: the one tool listed says why the others are missing, as stderr does.
        assert.deepEqual(
          (await client.listTools()).tools.map((tool) => tool.name),
          ['blume_status'],
        );
        const status = await call(client, 'blume_status');
        assert.equal(status.isError, true);
        assert.match(textOf(status), /The deploy tools are not listed: Cannot reach Blume/);
        assert.match(
          stderr,
          new RegExp(
            `The deploy tools are not listed: Cannot reach Blume at http://127\\.0\\.0\\.1:${down} \\(ECONNREFUSED\\); nothing was changed`,
          ),
        );
        assert.match(
          stderr,
          /The cms tools are not listed: Blume answered 503 to GET \/api\/cms\/v1\/content-types: the API is failing; nothing was changed by this tool/,
        );
      } finally {
        await client.close();
        failing.close();
        said.push(stderr);
      }
    });

    it('over HTTP, a missing or refused credential answers 401 with WWW-Authenticate and the protected-resource metadata', async () => {
      const metadataUrl = `${origin}/.well-known/oauth-protected-resource`;
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      const cases: Array<[Record<string, string>, string, RegExp]> = [
        [{}, 'authentication_required', /No credential was given: set Authorization \(Bearer deploy token\)/],
        [
          { authorization: 'Bearer dpl_nosuchtoken.secretsecretsecret' },
          'invalid_token',
          /Authorization \(Bearer deploy token\) was refused, so the deploy tools are not listed/,
        ],
        [
          {
            authorization: `Bearer ${deployToken}`,
            'x-blume-tenant-url': `http://community.${new URL(origin).host}`,
            'x-blume-api-key': 'bk_nosuchkey',
          },
          'invalid_token',
          /X-Blume-Api-Key was refused, so the cms tools are not listed/,
        ],
      ];
      for (const [headers, code, detail] of cases) {
        const response = await fetch(`${origin.replace('localhost', '127.0.0.1')}/mcp`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(list),
        });
        assert.equal(response.status, 401, code);
        const challenge = response.headers.get('www-authenticate') ?? '';
        assert.match(challenge, /^Bearer /);
        assert.ok(challenge.includes(`resource_metadata="${metadataUrl}"`), challenge);
        const problem = (await response.json()) as { code: string; detail: string };
        assert.equal(problem.code, code);
        assert.match(problem.detail, detail);
        said.push(JSON.stringify(problem));
      }
      // The SDK client sees the 401 too, not an empty tool list.
      const { connect } = httpClient({ authorization: 'Bearer dpl_nosuchtoken.secretsecretsecret' });
      await assert.rejects(connect(), /401|Unauthorized/i);

      const metadata = await t.app.inject({
        method: 'GET',
        url: '/.well-known/oauth-protected-resource',
        headers: { host: new URL(origin).host },
      });
      assert.equal(metadata.statusCode, 200);
      const body = json<{ resource: string; bearer_methods_supported: string[] }>(metadata);
      assert.equal(body.resource, `${origin}/mcp`);
      assert.deepEqual(body.bearer_methods_supported, ['header']);
    });

    function stdioClient(env: Record<string, string>, client = new Client({ name: 'blume-test', version: '1.0.0' })) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', 'src/main.ts', 'mcp'],
        cwd: ROOT,
        stderr: 'pipe',
        env: { PATH: process.env.PATH ?? '', BLUME_URL: origin, ...env },
      });
      const output = { stderr: '' };
      transport.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
      return { client, output, connect: () => client.connect(transport) };
    }

    it('over stdio, a refused credential is named by blume_status, and BLUME_MCP_READ_ONLY lists only read tools', async () => {
      const { client, output, connect } = stdioClient({
        BLUME_DEPLOY_TOKEN: deployToken,
        BLUME_TENANT_URL: `http://community.${new URL(origin).host}`,
        BLUME_FORUM_TOKEN: 'not-a-forum-token',
        BLUME_MCP_READ_ONLY: 'true',
      });
      await connect();
      try {
        const tools = (await client.listTools()).tools;
        assert.deepEqual(tools.map((tool) => tool.name).sort(), [
          'blume_status',
          'deploy_get_build',
          'deploy_list_releases',
        ]);
        const status = tools.find((tool) => tool.name === 'blume_status')!;
        assert.match(status.description!, /BLUME_FORUM_TOKEN was refused, so the forum tools are not listed/);
        const answer = await call(client, 'blume_status');
        assert.equal(answer.isError, true);
        assert.match(textOf(answer), /BLUME_FORUM_TOKEN was refused/);
        assert.match(output.stderr, /BLUME_FORUM_TOKEN was refused/);
      } finally {
        await client.close();
        said.push(output.stderr);
      }
      const bare = stdioClient({ BLUME_TENANT_URL: `http://community.${new URL(origin).host}` });
      await bare.connect();
      try {
        const answer = await call(bare.client, 'blume_status');
        assert.match(textOf(answer), /BLUME_TENANT_URL is set but neither BLUME_FORUM_TOKEN nor BLUME_API_KEY is/);
      } finally {
        await bare.client.close();
      }
    });

    it('over stdio, a client that supports elicitation is asked for the human’s yes or no', async () => {
      const client = new Client({ name: 'blume-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      const questions: string[] = [];
      let yes = true;
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        questions.push(request.params.message);
        return { action: 'accept', content: { confirm: yes } };
      });
      const { output, connect } = stdioClient({ BLUME_DEPLOY_TOKEN: deployToken }, client);
      await connect();
      try {
        const before = (await call(client, 'deploy_list_releases', { page_size: 2 })).structuredContent!;
        const current = (before.aliases as { live: string }).live;
        const rollbackTo = before.rollback_to as string;
        yes = false;
        const declined = await call(client, 'deploy_rollback', {});
        assert.equal(declined.isError, true);
        assert.match(textOf(declined), /^Your human declined: This would return .* Nothing changed\./);
        assert.match(questions.at(-1)!, new RegExp(`This would return .* to release ${rollbackTo}.*Go ahead\\?`));
        yes = true;
        const done = await call(client, 'deploy_rollback', {});
        assert.equal(done.isError, undefined, textOf(done));
        assert.equal(done.structuredContent!.live, rollbackTo);
        assert.equal(questions.length, 2);
        const back = await call(client, 'deploy_promote', { release: current });
        assert.equal(back.isError, undefined, textOf(back));
      } finally {
        await client.close();
        said.push(output.stderr);
      }
    });

    it('refuses /mcp requests from another Origin', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          host: new URL(origin).host,
          origin: 'http://evil.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
      assert.equal(response.statusCode, 403);
      assert.equal(json<{ code: string }>(response).code, 'origin_not_allowed');
    });
  });
}
