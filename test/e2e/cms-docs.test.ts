// docs/cms.md, word for word: every command of its `sh` blocks runs with `sh` against a running
// `blume serve` set up as the README's quick start sets it up, from the reader's own folder (a
// project with Blume's node_modules, where cookies.txt, poster.png and the generated types land), the
// `npx blume` commands from the server's folder. The page's placeholders are put in as a reader
// would: the server's port for 8080, the minted key for `blu_sk_...`, the entry's id for `ENTRY_ID`,
// a local receiver for the webhook URL and a local provider (speaking OpenAI's API) for the AI
// settings, which the server is told to reach on loopback. The page's `ts` files run too: events.ts
// compiles under `tsc --strict` and prints the published events, and verify.ts accepts a real
// delivery's signature and refuses a changed body.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AI_PROVIDER_ENV, startAiProvider, type AiProviderServer } from '../helpers/ai-provider.js';
import { docCommands, docFiles, startReaderServer, stepOf, type ReaderServer } from '../helpers/doc-commands.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/ports.js';
import { loginOnForum } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE = 'docs/cms.md';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
/** What the local provider answers as the model's text: values that fit the page's `events` type. */
const DRAFT = {
  title: 'Backups for beginners',
  kind: 'workshop',
  starts_at: '2035-05-07T18:00:00Z',
  seats: 12,
  body: 'Copy the data folder, then *test the restore*.',
};

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the commands so far told the reader, which later commands use. */
interface Found {
  key?: string;
  entryId?: string;
  webhookSecret?: string;
  mediaUrl?: string;
}

type Entry = { id: string; slug: string | null; status: string; published_at: string | null; data: object };
type Check = (stdout: string, found: Found) => void;

const json = <T>(stdout: string): T => JSON.parse(stdout) as T;

const RULES = [
  {
    pattern: /\/api\/auth\/login$/,
    step: (): Check => (stdout) => assert.match(stdout, /"username":"admin"/),
  },
  {
    pattern: /"kind":"community","plan":"business"/,
    step: (): Check => (stdout) => assert.deepEqual(json<{ plan: string }>(stdout).plan, 'business'),
  },
  {
    pattern: /\/api\/sites\/club\/api-keys$/,
    step: (): Check => (stdout, found) => {
      const minted = json<{ key: string; scopes: string[] }>(stdout);
      assert.deepEqual(minted.scopes, ['admin']);
      assert.match(minted.key, /^blu_sk_/);
      found.key = minted.key;
    },
  },
  {
    pattern: /\/content-types /,
    step: (): Check => (stdout) => {
      const type = json<{ slug: string; fields: Array<{ name: string; type: string; filters: string[] }> }>(stdout);
      assert.equal(type.slug, 'events', stdout);
      assert.deepEqual(
        type.fields.map((f) => `${f.name}:${f.type}`),
        ['title:text', 'kind:enum', 'starts_at:datetime', 'seats:number', 'poster:media', 'body:markdown'],
      );
      assert.deepEqual(type.fields[1]!.filters, ['eq', 'ne', 'in']);
    },
  },
  {
    pattern: /^curl -H .*\/entries\/events --json '\{"slug":"self-hosting-101"/,
    step: (): Check => (stdout, found) => {
      const entry = json<Entry & { html: { body: string } }>(stdout);
      assert.equal(entry.status, 'draft', stdout);
      assert.equal(entry.published_at, null);
      assert.equal(entry.html.body.trim(), '<p>Bring a <strong>laptop</strong>.</p>');
      found.entryId = entry.id;
    },
  },
  {
    pattern: /"kind":"party"/,
    step: (): Check => (stdout) => {
      const problem = json<{ status: number; code: string; detail: string; errors: Array<{ field: string }> }>(stdout);
      assert.equal(problem.status, 422);
      assert.equal(problem.code, 'invalid_field_value');
      assert.equal(problem.detail, 'kind must be one of talk, workshop, meetup');
      assert.deepEqual(
        problem.errors.map((e) => e.field),
        ['kind'],
      );
    },
  },
  {
    pattern: /^curl -X PUT /,
    step: (): Check => (stdout, found) => {
      const entry = json<Entry>(stdout);
      assert.equal(entry.id, found.entryId);
      assert.equal(entry.status, 'published', stdout);
      assert.ok(entry.published_at && Date.parse(entry.published_at) <= Date.now());
    },
  },
  {
    pattern: /"slug":"spring-meetup"/,
    step: (): Check => (stdout) => {
      const entry = json<Entry>(stdout);
      assert.equal(entry.status, 'published', stdout);
      assert.equal(entry.published_at, '2035-03-01T08:00:00.000Z');
    },
  },
  {
    pattern: /\?filter\[kind\]=workshop&sort=starts_at'$/,
    step: (): Check => (stdout) =>
      assert.deepEqual(
        json<Entry[]>(stdout).map((e) => e.slug),
        ['self-hosting-101'],
      ),
  },
  {
    pattern: /\?status=draft'$/,
    step: (): Check => (stdout) =>
      assert.deepEqual(
        json<Entry[]>(stdout).map((e) => e.slug),
        ['spring-meetup'],
        'the scheduled entry is not live yet',
      ),
  },
  {
    pattern: /-F file=@poster\.png /,
    step: (): Check => (stdout, found) => {
      const media = json<{ url: string; content_type: string; size: number }>(stdout);
      assert.equal(media.content_type, 'image/png', stdout);
      assert.equal(media.size, PNG.length);
      assert.match(media.url, /^\/media\/\S+$/);
      found.mediaUrl = media.url;
    },
  },
  {
    pattern: /\/api\/cms\/v1\/webhooks /,
    step: (): Check => (stdout, found) => {
      const hook = json<{ url: string; events: string[]; secret: string }>(stdout);
      assert.deepEqual(hook.events, ['entry.published', 'entry.updated', 'entry.deleted'], stdout);
      assert.match(hook.secret, /^whsec_/);
      found.webhookSecret = hook.secret;
    },
  },
  {
    pattern: /^npx blume settings set --site club /,
    step: (): Check => (stdout) =>
      assert.match(
        stdout,
        /^Saved AI_API_KEY, AI_BASE_URL, AI_CONTENT_ENABLED, AI_MODEL, AI_PROVIDER for "club"\. Saved settings wait for `blume settings apply`\./,
      ),
  },
  {
    pattern: /^npx blume settings apply --site club$/,
    step: (): Check => (stdout) =>
      assert.match(stdout, /^Applied settings of "club" \(generation \d+\): .*AI_CONTENT_ENABLED/),
  },
  {
    pattern: /\/ai-content\/generate /,
    step: (): Check => (stdout) => {
      const answer = json<{ data: object; entry: Entry }>(stdout);
      assert.deepEqual(answer.data, { ...DRAFT, starts_at: '2035-05-07T18:00:00.000Z' }, stdout);
      assert.equal(answer.entry.status, 'draft');
      assert.deepEqual(answer.entry.data, answer.data);
    },
  },
  {
    pattern: /^curl -o cms\.json /,
    step: (): Check => () => {},
  },
  {
    pattern: /^npx openapi-typescript cms\.json -o cms\.d\.ts$/,
    step: (): Check => () => {},
  },
  {
    pattern: /npx tsx events\.ts$/,
    step: (): Check => (stdout) => assert.equal(stdout, '2035-03-14T18:00:00.000Z Self-hosting 101 20\n'),
  },
];

describe('docs/cms.md, as written', () => {
  let reader: ReaderServer;
  let provider: AiProviderServer;
  let receiver: Server;
  let receiverUrl: string;
  let project: string;
  const deliveries: Delivery[] = [];

  before(async () => {
    provider = await startAiProvider();
    provider.answer = JSON.stringify(DRAFT);
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(204).end();
      });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${port}/blume`;
    project = await mkdtemp(path.join(tmpdir(), 'blume-cms-docs-'));
    await symlink(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
    await writeFile(path.join(project, 'package.json'), '{"type":"module"}\n');
    await writeFile(path.join(project, 'poster.png'), PNG);
    reader = await startReaderServer('handbook', { BLUME_WEBHOOKS_ALLOW_PRIVATE: 'True', ...AI_PROVIDER_ENV });
    const files = { ...(await docFiles('docs/api-clients.md')), ...(await docFiles(PAGE)) };
    for (const name of ['localhost.ts', 'events.ts', 'verify.ts'])
      await writeFile(path.join(project, name), files[name]!.replaceAll('localhost:8080', `localhost:${reader.port}`));
  });
  after(async () => {
    await reader?.close();
    await provider?.close();
    receiver?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('runs every command of the page, and its code', async () => {
    const commands = await docCommands(PAGE);
    assert.deepEqual(
      [...new Set(commands.map((c) => c.section))],
      [
        'Set up a site for content',
        'API keys and scopes',
        'Content types',
        'Entries, drafts and publishing',
        'Media',
        'Webhooks',
        'AI drafting',
        'A typed client',
      ],
    );
    const found: Found = {};
    for (const { section, command } of commands) {
      const check = stepOf(PAGE, RULES, section, command);
      const asRun = command
        .replaceAll('blu_sk_...', found.key ?? 'blu_sk_...')
        .replaceAll('ENTRY_ID', found.entryId ?? 'ENTRY_ID')
        .replace('https://hooks.example.com/blume', receiverUrl)
        .replace('https://api.openai.com/v1', `${provider.origin}/v1`)
        .replace('AI_API_KEY=sk-...', `AI_API_KEY=${provider.apiKey}`);
      // `npx blume` runs from the server's folder, everything else from the reader's project.
      const fromServer = command.startsWith('npx blume');
      const result = await reader.run(
        asRun,
        fromServer ? { BLUME_DATA_DIR: reader.dataDir } : {},
        fromServer ? ROOT : project,
      );
      assert.equal(result.status, 0, `${command}\n${result.stdout}\n${result.stderr}`);
      check(result.stdout, found);
      assert.ok(!(result.stdout + result.stderr).includes(provider.apiKey), 'the AI key is never printed');
    }

    // The typed client compiled under tsc --strict, with no cast.
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const compiled = spawnSync(
      process.execPath,
      [
        ...[tsc, '--strict', '--noEmit', '--target', 'es2023', '--lib', 'es2023', '--types', 'node'],
        ...['--module', 'nodenext', '--skipLibCheck', 'events.ts'],
      ],
      { cwd: project, encoding: 'utf8' },
    );
    assert.equal(compiled.status, 0, compiled.stdout + compiled.stderr);
    const generated = await readFile(path.join(project, 'cms.d.ts'), 'utf8');
    assert.match(generated, /"\/api\/cms\/v1\/entries\/events": \{/);

    // The site serves the upload to anyone, and the editor shows the type to the owner.
    const { localFetch } = (await import(pathToFileURL(path.join(project, 'localhost.ts')).href)) as {
      localFetch: (request: Request) => Promise<Response>;
    };
    const site = `http://club.localhost:${reader.port}`;
    const served = await localFetch(new Request(site + found.mediaUrl!));
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);
    const owner = await loginOnForum(site, 'admin', 'a long password', localFetch);
    assert.equal(owner.status, 303);
    const editor = await localFetch(new Request(`${site}/admin/content`, { headers: { cookie: owner.cookie } }));
    assert.equal(editor.status, 200);
    assert.match(await editor.text(), /Events/);

    // The scheduled entry is not live: a published read does not find it.
    const scheduled = await localFetch(
      new Request(`${site}/api/cms/v1/entries/events/spring-meetup`, {
        headers: { authorization: `Bearer ${found.key}` },
      }),
    );
    assert.equal(scheduled.status, 404);
    // The draft came from the site's own provider, called once with the page's prompt.
    assert.equal(provider.calls.length, 1);
    assert.match(JSON.stringify(provider.calls[0]!.body), /A beginner workshop on backups, 12 seats/);

    // A write of the published entry is delivered, signed as verify.ts checks it.
    const { verifyBlumeSignature } = (await import(pathToFileURL(path.join(project, 'verify.ts')).href)) as {
      verifyBlumeSignature: (secret: string, header: string, body: string) => boolean;
    };
    const updated = await localFetch(
      new Request(`${site}/api/cms/v1/entries/events/${found.entryId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${found.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { title: 'Self-hosting 101', kind: 'talk', starts_at: '2035-03-14T18:00:00Z' } }),
      }),
    );
    assert.equal(updated.status, 200, await updated.text());
    const delivery = await eventually('the entry.updated delivery', () => deliveries[0]);
    assert.equal(delivery.headers['x-blume-event'], 'entry.updated');
    const signature = String(delivery.headers['x-blume-signature']);
    assert.equal(verifyBlumeSignature(found.webhookSecret!, signature, delivery.body), true);
    assert.equal(verifyBlumeSignature(found.webhookSecret!, signature, delivery.body.replace('talk', 'meetup')), false);
    assert.equal(verifyBlumeSignature('whsec_another', signature, delivery.body), false);
  });
});
