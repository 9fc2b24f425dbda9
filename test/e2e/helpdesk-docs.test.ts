// docs/helpdesk.md, word for word: its commands run with `sh` against a running `blume serve` set up
// as the README's quick start does, with the page's placeholders put in as a reader would (the
// server's port for 8080, the minted API key for `blu_sk_...`), curl in a folder of the reader's
// own where the page's files are saved, `npx blume` from the server's folder. The Postfix `pipe`
// command of master.cf runs as pipe(8) runs it: split on blanks, no shell, the message on stdin
// after the `From ` line of flag F.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { docCommands, docFiles, startReaderServer, stepOf, type ReaderServer } from '../helpers/doc-commands.js';
import { runCommand } from '../helpers/process.js';

const PAGE = 'docs/helpdesk.md';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Answer {
  [name: string]: unknown;
}

/** What the test keeps from one answer for the commands after it. */
interface Kept {
  apiKey?: string;
}

type Check = (stdout: string, kept: Kept) => void;

const json = (stdout: string): Answer => JSON.parse(stdout) as Answer;

const RULES = [
  {
    pattern: /-c cookies\.txt .*\/api\/auth\/login$/,
    step: (): Check => (stdout) => assert.match(stdout, /"username":"admin"/),
  },
  {
    pattern: /"id":"support","kind":"community"/,
    step: (): Check => (stdout) => assert.equal(json(stdout).id, 'support'),
  },
  {
    pattern: /^npx blume plan set support business$/,
    step: (): Check => (stdout) => assert.match(stdout, /^Site "support" is now on the business plan \(was free\)/),
  },
  {
    pattern: /\/api\/sites\/support\/api-keys$/,
    step: (): Check => (stdout, kept) => {
      const key = json(stdout);
      assert.deepEqual(key.scopes, ['helpdesk-write']);
      kept.apiKey = key.key as string;
      assert.match(kept.apiKey, /^blu_sk_/);
    },
  },
  {
    pattern: /\/api\/helpdesk\/v1\/categories$/,
    step: (): Check => (stdout) => {
      const category = json(stdout);
      assert.equal(category.name, 'Billing');
      assert.equal(category.description, 'Invoices and refunds');
    },
  },
  {
    pattern: /\/sla-policies\/high$/,
    step: (): Check => (stdout) =>
      assert.deepEqual(json(stdout), { priority: 'high', first_response_minutes: 60, resolution_minutes: 480 }),
  },
  {
    pattern: /^npx blume settings (set|apply) --site support/,
    step: (): Check => (stdout) => assert.notEqual(stdout, ''),
  },
  {
    pattern: /< message\.eml$/,
    step: (): Check => (stdout) =>
      assert.deepEqual(
        { ...json(stdout), ticket_id: 'id' },
        { ticket_id: 'id', number: 1, created: true, ignored: null },
      ),
  },
  {
    pattern: /@postmark\.json /,
    step: (): Check => (stdout) =>
      assert.deepEqual(
        { ...json(stdout), ticket_id: 'id' },
        { ticket_id: 'id', number: 2, created: true, ignored: null },
      ),
  },
  {
    pattern: /< autoreply\.eml$/,
    step: (): Check => (stdout) => {
      const answer = json(stdout);
      assert.equal(answer.number, 1);
      assert.equal(answer.ignored, 'Auto-Submitted: auto-replied');
    },
  },
];

describe('docs/helpdesk.md, as written', () => {
  let reader: ReaderServer;
  let folder: string;
  before(async () => {
    // No docs builds here: the help desk needs none, and the server starts without its build sandbox.
    reader = await startReaderServer('hello', { BLUME_BUILD_CONCURRENCY: '0' });
    folder = await mkdtemp(path.join(tmpdir(), 'blume-helpdesk-reader-'));
    for (const [name, content] of Object.entries(await docFiles(PAGE)))
      await writeFile(path.join(folder, name), content);
  });
  after(async () => {
    await reader?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const api = async (url: string, apiKey: string): Promise<Answer[]> => {
    const result = await reader.run(`curl --fail-with-body -H 'Authorization: Bearer ${apiKey}' ${url}`);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    return JSON.parse(result.stdout) as Answer[];
  };

  it('runs every command of the page', async () => {
    const commands = await docCommands(PAGE);
    assert.deepEqual(
      [...new Set(commands.map((c) => c.section))],
      [
        'The site and its plan',
        'An API key to set it up',
        'Categories and agents',
        'SLA targets',
        'The support address and the inbound secret',
        'Mail from your own mail server (raw MIME)',
        'Postmark',
        'Outgoing mail',
        'Auto-replies, bounces and loops',
      ],
    );
    const kept: Kept = {};
    for (const { section, command } of commands) {
      const check = stepOf(PAGE, RULES, section, command);
      const asTyped = command.replaceAll('blu_sk_...', kept.apiKey ?? 'blu_sk_...');
      const blume = command.startsWith('npx blume');
      const result = await reader.run(asTyped, { BLUME_DATA_DIR: reader.dataDir }, blume ? ROOT : folder);
      assert.equal(result.status, 0, `${command}\n${result.stdout}\n${result.stderr}`);
      check(result.stdout, kept);
    }

    // What the commands did, as the API reads it back.
    const site = `http://support.localhost:${reader.port}/api/helpdesk/v1`;
    const tickets = await api(`${site}/tickets?sort=number`, kept.apiKey!);
    assert.deepEqual(
      tickets.map((ticket) => [ticket.number, ticket.subject, ticket.status]),
      [
        [1, 'The invoice shows the wrong address', 'new'],
        [2, 'Delivery is late', 'new'],
      ],
    );
    const thread = await api(`${site}/tickets/1/replies`, kept.apiKey!);
    assert.deepEqual(
      thread.map((entry) => entry.body),
      ['Hello, my last invoice still has my old street on it.\nErin', 'I am away until Monday.'],
    );
    const settings = await reader.run(`npx blume settings get --site support`, { BLUME_DATA_DIR: reader.dataDir });
    assert.match(settings.stdout, /HELPDESK_SUPPORT_ADDRESS=support@example\.com/);
    assert.match(settings.stdout, /MAIL_SERVER=smtp\.example\.com/);
  });

  it('runs the Postfix pipe command of master.cf as pipe(8) does, the mbox From line first', async () => {
    const page = await docFiles(PAGE);
    const masterCf = page['master.cf']!;
    const argv = /argv=(.*)$/m.exec(masterCf)![1]!.trim().split(/\s+/);
    const auth = path.join(folder, 'helpdesk-auth');
    const markdown = (await import('node:fs/promises')).readFile(path.join(ROOT, PAGE), 'utf8');
    const header = /holds the one line `([^`]+)`/.exec(await markdown)![1]!;
    await writeFile(auth, `${header}\n`);
    const local = argv.map((word) =>
      word
        .replace('https://support.example.com', `http://support.localhost:${reader.port}`)
        .replace('/etc/postfix/helpdesk-auth', auth),
    );
    assert.equal(local[0], '/usr/bin/curl');
    const message = [
      'From erin@customer.example  Sat Nov 28 10:00:00 2026',
      'From: Erin Example <erin@customer.example>',
      'To: support@example.com',
      'Subject: Through Postfix',
      'Message-ID: <postfix-pipe@customer.example>',
      '',
      'Piped by Postfix.',
      '',
    ].join('\n');
    const result = await runCommand(local, {}, folder, message);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    const answer = JSON.parse(result.stdout) as Answer;
    assert.equal(answer.created, true);
    assert.equal(answer.ignored, null);
  });
});
