// Pages built on worker threads: the site is byte for byte the one a single thread builds, warnings
// included, and a problem found on a worker fails the build as it would on the main thread. The
// workers run the sandboxed build's entry (build-entry.ts), as they do in the sandbox.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildDocsSite } from './docs-site.js';
import { DocsBuildError } from './errors.js';
import { defaultWorkerCount } from './page-threads.js';
import { builderEntry } from './sandboxed-build.js';

const PAGES = 60;

async function writeSite(root: string, extra: Record<string, string> = {}): Promise<void> {
  await mkdir(path.join(root, 'guide'), { recursive: true });
  await writeFile(path.join(root, 'index.md'), '# Home\n\nStart with [page 0](guide/page-0.md).\n');
  for (let i = 0; i < PAGES; i += 1) {
    const next = (i + 1) % PAGES;
    await writeFile(
      path.join(root, 'guide', `page-${i}.md`),
      [
        `---\ntitle: Page ${i}\norder: ${i}\n---`,
        `Intro of page ${i}, see [the next one](page-${next}.md#usage) and [a missing heading](page-${next}.md#nowhere).`,
        '## Usage',
        '```ts\nconst answer: number = 42;\n```',
        '> [!NOTE]\n> A callout.',
        `<a id="raw-${i}"></a><details><summary>More</summary>Hidden <b>text</b> <span onclick="x()">${i}</span></details>`,
        'Math: $E = mc^2$.',
        '```nosuchlanguage\nplain\n```',
      ].join('\n\n') + '\n',
    );
  }
  for (const [rel, content] of Object.entries(extra)) await writeFile(path.join(root, rel), content);
}

async function files(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out.set(
        path.relative(root, path.join(entry.parentPath, entry.name)),
        await readFile(path.join(entry.parentPath, entry.name), 'utf8'),
      );
  }
  return out;
}

describe('docs build on worker threads', () => {
  let scratch: string;
  /** The entry script as the sandbox runs it (bundled from the TypeScript sources under tsx). */
  let entry: string;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'blume-docs-threads-'));
    entry = (await builderEntry()).script;
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('builds the same site, with the same warnings, as one thread does', async () => {
    const input = path.join(scratch, 'same');
    await writeSite(input);
    const one = await buildDocsSite(input, path.join(scratch, 'one'), { siteUrl: 'https://threads.test' });
    const three = await buildDocsSite(input, path.join(scratch, 'three'), {
      siteUrl: 'https://threads.test',
      workerScript: entry,
      workers: 2,
      mainThreadPages: false,
    });
    assert.equal(one.workerTasks, 0);
    // Every source read and every page built on the two workers.
    assert.equal(three.workerTasks, 2 * (PAGES + 1));
    assert.deepEqual(three.warnings, one.warnings);
    assert.ok(one.warnings.some((w) => /names a heading that guide\/page-1\.md does not have/.test(w.message)));
    assert.ok(one.warnings.some((w) => /attribute "onclick"/.test(w.message)));
    const expected = await files(path.join(scratch, 'one'));
    const actual = await files(path.join(scratch, 'three'));
    assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort());
    for (const [file, content] of expected) assert.equal(actual.get(file), content, file);
    assert.match(expected.get('guide/page-7/index.html')!, /<math/);
  });

  it('fails on a broken link or bad front matter found on a worker, naming the file', async () => {
    const broken = path.join(scratch, 'broken');
    await writeSite(broken, {
      'guide/page-50.md': '# Fifty\n\n[gone](nowhere.md)\n',
      'guide/page-51.md': '---\ntitle: [unclosed\n---\n# Bad\n',
    });
    await assert.rejects(
      buildDocsSite(broken, path.join(scratch, 'broken-out'), {
        workerScript: entry,
        workers: 2,
        mainThreadPages: false,
      }),
      (error: unknown) => {
        assert.ok(error instanceof DocsBuildError, String(error));
        assert.match(error.message, /guide\/page-51\.md:\d+: front matter is not valid YAML/);
        return true;
      },
    );
    await writeFile(path.join(broken, 'guide/page-51.md'), '# Fine\n');
    await assert.rejects(
      buildDocsSite(broken, path.join(scratch, 'broken-out-2'), {
        workerScript: entry,
        workers: 2,
        mainThreadPages: false,
      }),
      /guide\/page-50\.md:3: broken link "nowhere\.md"/,
    );
  });

  it('uses a worker per free core, none when the cores are busy', () => {
    assert.equal(defaultWorkerCount(2, 0.3), 1);
    assert.equal(defaultWorkerCount(2, 1.5), 0);
    assert.equal(defaultWorkerCount(2, 20), 0);
    assert.equal(defaultWorkerCount(8, 0), 3);
    assert.equal(defaultWorkerCount(1, 0), 0);
  });
});
