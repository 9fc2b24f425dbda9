// fetchFileDates against a real git host (git http-backend on loopback): each file of the connected
// folder is dated by the committer time of the last commit that changed it, names with spaces and
// non-ASCII letters come back as they are (not quoted), and files outside the folder are left out.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHost, type GitHost, type WorkingCopy } from '../../../test/helpers/git-server.js';
import { fetchFileDates } from './fetch.js';

describe('page dates from a repository history', () => {
  let host: GitHost;
  let repo: WorkingCopy;
  let scratch: string;
  let head: string;

  before(async () => {
    host = await startGitHost();
    repo = await host.createRepository('acme/dates');
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-git-dates-'));
    await repo.commitAndPush(
      'main',
      {
        'docs/index.md': '# Home\n',
        'docs/guide/start here.md': '# Start\n',
        'docs/guide/café.md': '# Café\n',
        'README.md': 'outside\n',
      },
      'first',
      '2024-01-02T03:04:05Z',
    );
    await repo.commitAndPush(
      'main',
      { 'docs/guide/start here.md': '# Start\n\nMore.\n', 'README.md': 'outside, changed\n' },
      'second',
      '2025-02-03T04:05:06Z',
    );
    head = await repo.commitAndPush(
      'main',
      { 'docs/guide/café.md': '# Café\n\nAu lait.\n' },
      'third',
      '2026-03-04T05:06:07+02:00',
    );
  });
  after(async () => {
    await host.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const fetchDates = async (folder: string, commit: string): Promise<Map<string, string>> => {
    const workDir = await mkdtemp(path.join(scratch, 'work-'));
    return fetchFileDates({
      baseUrl: host.baseUrl,
      repository: 'acme/dates',
      commit,
      path: folder,
      workDir,
      timeoutMs: 60_000,
      log: () => {},
    });
  };

  it('dates each file of the connected folder by its last commit, by its path inside the folder', async () => {
    const dates = await fetchDates('docs', head);
    assert.deepEqual(Object.fromEntries([...dates].map(([file, date]) => [file, new Date(date).toISOString()])), {
      'index.md': '2024-01-02T03:04:05.000Z',
      'guide/start here.md': '2025-02-03T04:05:06.000Z',
      'guide/café.md': '2026-03-04T03:06:07.000Z',
    });
  });

  it('reads the history as of the built commit, and the whole repository for a root folder', async () => {
    const fourth = await repo.commitAndPush(
      'main',
      { 'docs/index.md': '# Home, later\n' },
      'fourth',
      '2026-05-06T07:08:09Z',
    );
    const root = await fetchDates('', head);
    assert.equal(new Date(root.get('README.md')!).toISOString(), '2025-02-03T04:05:06.000Z');
    assert.equal(
      new Date(root.get('docs/index.md')!).toISOString(),
      '2024-01-02T03:04:05.000Z',
      'a later commit does not date a build of an earlier one',
    );
    const later = await fetchDates('docs', fourth);
    assert.equal(new Date(later.get('index.md')!).toISOString(), '2026-05-06T07:08:09.000Z');
  });
});
