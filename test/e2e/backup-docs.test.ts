// docs/backup.md, word for word: the backup command runs against a live embedded server set up as
// the README's quick start sets it up, the restore command into a fresh PostgreSQL database (the
// page's URL replaced by the test's), and the restored server answers as the original did.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { docCommands, startReaderServer, type ReaderServer } from '../helpers/doc-commands.js';
import { BLUME_CLI_FROM_SOURCES, runCommand, startBlume } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGE_DATABASE_URL = 'postgres://blume@localhost:5432/blume';

describe(
  'docs/backup.md, as written',
  { skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL' },
  () => {
    let reader: ReaderServer;
    let database: TestDatabase;
    let scratch: string;
    before(async () => {
      reader = await startReaderServer('handbook');
      database = await createTestDatabase('postgres', { migrate: false });
      scratch = await mkdtemp(path.join(tmpdir(), 'blume-backup-docs-'));
    });
    after(async () => {
      await reader?.close();
      await database?.drop();
      await rm(scratch, { recursive: true, force: true });
    });

    it('backs the running server up and restores it into PostgreSQL', async () => {
      // The site's releases and aliases (the first listing makes its preview password), as backed up.
      const releases = (origin: string) =>
        fetch(`${origin}/api/deploy/handbook/releases`, {
          headers: { authorization: `Bearer ${reader.deployToken}` },
        }).then(async (r) => {
          const { releases: list, aliases } = (await r.json()) as { releases: unknown; aliases: unknown };
          return [r.status, list, aliases];
        });
      const original = await releases(reader.server.url);
      const commands = await docCommands('docs/backup.md');
      assert.deepEqual(
        commands.map((c) => c.section),
        ['Back up', 'Restore'],
      );
      const restoredDir = path.join(scratch, 'restored');
      const envOf = {
        'Back up': { BLUME_DATA_DIR: reader.dataDir },
        Restore: { BLUME_DATA_DIR: restoredDir },
      } as Record<string, Record<string, string>>;
      for (const { section, command } of commands) {
        const asRun = command
          .replaceAll('./blume-backup', path.join(scratch, 'blume-backup'))
          .replace(PAGE_DATABASE_URL, database.url!)
          .replace('npx blume', BLUME_CLI_FROM_SOURCES);
        const result = await runCommand(['sh', '-c', asRun], envOf[section]!, ROOT);
        assert.equal(result.status, 0, `${command}\n${result.stdout}\n${result.stderr}`);
        assert.match(
          result.stdout,
          section === 'Back up'
            ? /^Backed up \d+ tables .*\n\(done by the running server, pid \d+\)\n$/
            : /^Restored \d+ tables .* into PostgreSQL and the local blob store\.\n$/,
        );
      }

      const restored = await startBlume([], {
        BLUME_DATA_DIR: restoredDir,
        DATABASE_URL: database.url!,
        BLUME_PUBLIC_URL: `http://localhost:${reader.port}`,
      });
      try {
        assert.deepEqual(await releases(restored.url), original);
        const login = await fetch(`${restored.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ login: 'admin', password: 'a long password' }),
        });
        assert.equal(login.status, 200, 'the admin of the original logs in to the restored install');
      } finally {
        assert.equal(await restored.stop(), 0);
      }
    });
  },
);
