// The MCP tool server driven by the SDK's own Client against a running Blume: over stdio (the real
// `blume mcp` process, reaching Blume over the network) and over Streamable HTTP at /mcp. An agent
// uploads a site, reads its preview, is refused a promote without confirm, promotes, rolls back,
// builds from Markdown, replies in the forum, saves and drafts a CMS entry, and triages, answers and
// drafts a reply to a help desk ticket; the tool lists follow the credentials, and no credential
// ever appears in what the server says.
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
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMember } from '../forum/members.js';
import { mintApiKey } from '../../test/factories/cms.js';
import { makeCommunity } from '../../test/factories/forum.js';
import { helpdeskApi } from '../../test/factories/helpdesk.js';
import { AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../../test/helpers/ai-provider.js';
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

type Structured = Record<string, unknown> & { undo?: { tool: string; arguments: Record<string, unknown> } | null };

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
      const aiSettings = {
        AI_CONTENT_ENABLED: 'true',
        AI_PROVIDER: 'openai',
        AI_BASE_URL: `${ai.origin}/v1`,
        AI_MODEL: 'helper-1',
        AI_API_KEY: ai.apiKey,
      };
      assert.equal(
        (await portal(t.app, owner, { method: 'PUT', url: '/api/instances/community/env', payload: aiSettings }))
          .statusCode,
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
      for (const [name, html] of [
        ['v1', 'Hello one'],
        ['v2', 'Hello two'],
      ] as const) {
        await mkdir(path.join(filesDir, name));
        await writeFile(path.join(filesDir, name, 'index.html'), `<!doctype html><title>${html}</title><p>${html}</p>`);
      }
      await mkdir(path.join(filesDir, 'docs'));
      await writeFile(path.join(filesDir, 'docs', 'index.md'), '# Agent docs\n\nWritten by an agent.\n');
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

    /** What every transport must do, from a client holding every credential. */
    async function agentSession(client: Client, folder: (name: string) => string): Promise<void> {
      const slug = `launch-${++sessions}`;
      const tools = (await client.listTools()).tools;
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ALL_TOOLS);
      assert.equal(tools.length, 23);
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      for (const name of ['deploy_promote', 'deploy_rollback', 'deploy_upload', 'deploy_connect_repository'])
        assert.equal(byName.get(name)!.annotations?.destructiveHint, true, name);
      for (const name of [
        'deploy_list_releases',
        'forum_get_topic',
        'cms_list_entries',
        'helpdesk_list_tickets',
        'helpdesk_get_ticket',
      ])
        assert.equal(byName.get(name)!.annotations?.readOnlyHint, true, name);
      assert.equal(byName.get('helpdesk_triage')!.annotations?.idempotentHint, true);
      assert.ok(tools.every((tool) => tool.annotations?.openWorldHint === false && tool.outputSchema));
      assert.equal(client.getServerCapabilities()?.tools?.listChanged, true);

      // Upload: a preview, not live.
      const uploaded = await call(client, 'deploy_upload', { path: folder('v1') });
      assert.equal(uploaded.isError, undefined, textOf(uploaded));
      const first = (uploaded.structuredContent!.release as { id: string }).id;
      const previewUrl = new URL(uploaded.structuredContent!.preview_url as string);
      const auth = uploaded.structuredContent!.preview_auth as { user: string; password: string };
      assert.equal(auth.user, 'preview');
      assert.match(await edgeText(previewUrl.host, { authorization: basicAuth(auth.password) }), /^200 .*Hello one/s);

      // Promote: refused without confirm, saying what would go live; done with it.
      const refused = await call(client, 'deploy_promote', { release: first });
      assert.equal(refused.isError, true);
      assert.match(
        textOf(refused),
        new RegExp(`make release ${first} .*live at http://hello\\.localhost:\\d+.*replacing`),
      );
      const promoted = await call(client, 'deploy_promote', { release: first, confirm: true });
      assert.equal(promoted.isError, undefined, textOf(promoted));
      const host = new URL(promoted.structuredContent!.production_url as string).host;
      assert.match(await edgeText(host), /Hello one/);

      // A production deploy in one call, undone by the rollback it answers.
      const refusedDeploy = await call(client, 'deploy_upload', { path: folder('v2'), promote: true });
      assert.equal(refusedDeploy.isError, true);
      assert.match(textOf(refusedDeploy), new RegExp(`replacing release ${first}`));
      const deployed = await call(client, 'deploy_upload', { path: folder('v2'), promote: true, confirm: true });
      assert.equal(deployed.structuredContent!.live, true, textOf(deployed));
      assert.deepEqual(deployed.structuredContent!.undo!.tool, 'deploy_rollback');
      assert.match(await edgeText(host), /Hello two/);

      const refusedRollback = await call(client, 'deploy_rollback', {});
      assert.equal(refusedRollback.isError, true);
      assert.match(textOf(refusedRollback), new RegExp(`return http://hello\\.localhost:\\d+ to release ${first}`));
      assert.match(await edgeText(host), /Hello two/, 'a refused rollback changes nothing');
      const rolledBack = await call(client, 'deploy_rollback', { confirm: true });
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
      const releases = await call(client, 'deploy_list_releases');
      assert.equal((releases.structuredContent!.aliases as { live: string }).live, first);

      // Forum: start a topic, reply, read it back.
      const forums = await call(client, 'forum_list_forums');
      const general = (forums.structuredContent!.forums as Array<{ id: string; slug: string }>).find(
        (f) => f.slug === 'general',
      )!;
      const topic = await call(client, 'forum_create_topic', {
        forum_id: general.id,
        title: 'Release notes',
        body: 'What changed.',
      });
      const topicId = (topic.structuredContent!.topic as { id: string }).id;
      const reply = await call(client, 'forum_reply', { topic_id: topicId, body: 'Deployed by an agent.' });
      assert.equal(reply.isError, undefined, textOf(reply));
      const read = await call(client, 'forum_get_topic', { topic_id: topicId, view: 'threaded' });
      assert.equal(read.isError, undefined, textOf(read));
      assert.ok(JSON.stringify(read.structuredContent!.posts).includes('Deployed by an agent.'));

      // Content: save a draft, publish it, read it by slug.
      const saved = await call(client, 'cms_save_entry', {
        type: 'articles',
        data: { title: 'Launch' },
        status: 'draft',
      });
      assert.equal(saved.isError, undefined, textOf(saved));
      const entry = saved.structuredContent!.entry as { id: string; slug: string };
      const published = await call(client, 'cms_save_entry', {
        type: 'articles',
        id_or_slug: entry.id,
        slug,
        data: { title: 'Launch day' },
        status: 'published',
      });
      assert.equal((published.structuredContent!.entry as { status: string }).status, 'published', textOf(published));
      const got = await call(client, 'cms_get_entry', { type: 'articles', id_or_slug: slug });
      assert.equal((got.structuredContent!.entry as { data: { title: string } }).data.title, 'Launch day');

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
      const listed = await call(client, 'helpdesk_list_tickets', { q: 'printer', status: 'new,open' });
      assert.equal(listed.isError, undefined, textOf(listed));
      const ticket = (listed.structuredContent!.tickets as Array<{ id: string; number: number; subject: string }>).find(
        (row) => row.subject === subject,
      )!;
      assert.ok(ticket, textOf(listed));
      const noted = await call(client, 'helpdesk_reply', {
        id: String(ticket.number),
        body: 'Checked the tray.',
        internal: true,
      });
      assert.equal((noted.structuredContent!.entry as { internal: boolean }).internal, true, textOf(noted));
      const triaged = await call(client, 'helpdesk_triage', {
        id: ticket.id,
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
      const nothing = await call(client, 'helpdesk_triage', { id: ticket.id });
      assert.equal(nothing.isError, true);
      assert.match(textOf(nothing), /Nothing to change/);
      ai.answer = 'Hi Pat, please open the back cover.';
      const replyDraft = await call(client, 'helpdesk_draft_reply', { id: ticket.id, instructions: 'Be brief.' });
      assert.equal(
        (replyDraft.structuredContent!.draft as { body: string }).body,
        'Hi Pat, please open the back cover.',
        textOf(replyDraft),
      );
      const thread = await call(client, 'helpdesk_get_ticket', { id: ticket.id });
      const entries = thread.structuredContent!.thread as Array<{ body: string; internal: boolean }>;
      assert.deepEqual(
        entries.map((entry) => [entry.body, entry.internal]),
        [
          ['Paper everywhere.', false],
          ['Checked the tray.', true],
        ],
        'the draft was not sent',
      );
      assert.deepEqual(
        (await call(client, 'helpdesk_get_ticket', { id: ticket.id, internal: false })).structuredContent!.thread,
        [entries[0]],
      );

      // Bad input: each a clear tool error.
      const badRelease = await call(client, 'deploy_promote', { release: 'NOT-A-RELEASE', confirm: true });
      assert.equal(badRelease.isError, true);
      assert.match(textOf(badRelease), /release/);
      const unknown = await call(client, 'deploy_launch_rockets', {});
      assert.equal(unknown.isError, true);
      const invalid = await call(client, 'helpdesk_triage', { id: 'x', priority: 'whenever' });
      assert.equal(invalid.isError, true);
      assert.match(textOf(invalid), /priority/, 'a schema error names the field');
      const missing = await call(client, 'deploy_upload', { path: folder('no-such-folder') });
      assert.equal(missing.isError, true);
      assert.match(textOf(missing), /Nothing exists at/);
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
        await agentSession(client, (name) => path.join(filesDir, name));
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

    it('over Streamable HTTP at /mcp: the same session, files read only under BLUME_MCP_FILES_DIR', async () => {
      const { client, connect } = httpClient({
        authorization: `Bearer ${deployToken}`,
        'x-blume-tenant-url': `http://community.${new URL(origin).host}`,
        'authentication-token': forumToken,
        'x-blume-api-key': writeKey,
      });
      await connect();
      try {
        await agentSession(client, (name) => name);
        const outside = await call(client, 'deploy_upload', { path: '/etc' });
        assert.equal(outside.isError, true);
        assert.match(textOf(outside), /outside/);
      } finally {
        await client.close();
      }
    });

    it('lists tools by what the credentials can do: 8 with a deploy token, read tools with read keys, none on a free site or with a bad token', async () => {
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
        [{ 'x-blume-tenant-url': `http://cheap.${new URL(origin).host}`, 'x-blume-api-key': freeKey }, []],
        [{ authorization: 'Bearer dpl_nosuchtoken.secretsecretsecret' }, []],
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
        await mkdir(path.join(filesDir, 'broken'));
        const page = `<!doctype html><title>Broken ${database}</title><p>gone</p>`;
        await writeFile(path.join(filesDir, 'broken', 'index.html'), page);
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
        const forced = await call(client, 'deploy_promote', { release, confirm: true, force: true });
        assert.equal(forced.isError, undefined, textOf(forced));
        assert.equal(forced.structuredContent!.undo!.tool, 'deploy_rollback');
        assert.equal((await call(client, 'deploy_rollback', { confirm: true })).isError, undefined);

        const unconfirmed = await call(client, 'deploy_connect_repository', {
          repository: 'acme/site',
          branch: 'main',
          kind: 'static',
        });
        assert.equal(unconfirmed.isError, true);
        assert.match(textOf(unconfirmed), /this would connect acme\/site branch main as a static site to hello/);
        const connected = await call(client, 'deploy_connect_repository', {
          repository: 'acme/site',
          branch: 'main',
          kind: 'static',
          confirm: true,
        });
        assert.equal(connected.isError, undefined, textOf(connected));
        assert.match(String(connected.structuredContent!.webhook_url), /\/api\/deploy\/hello\/github\/webhook$/);
        assert.ok(String(connected.structuredContent!.webhook_secret).length >= 32);
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
        assert.deepEqual((await client.listTools()).tools, []);
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
