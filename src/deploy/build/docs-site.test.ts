import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildDocsSite, type DocsBuildResult } from './docs-site.js';
import { DocsBuildError } from './errors.js';
import { SEARCH_INDEX_FILE, wordFile, type SearchIndex } from './search-index.js';

const fixture = fileURLToPath(new URL('../../../test/fixtures/docs-site/', import.meta.url));

let scratch: string;
before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'blume-docs-test-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

let counter = 0;
/** A docs folder made from a map of relative path -> content, and an empty output folder beside it. */
async function docsTree(files: Record<string, string | Buffer>): Promise<{ input: string; output: string }> {
  counter += 1;
  const input = path.join(scratch, `in-${counter}`);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(input, rel)), { recursive: true });
    await writeFile(path.join(input, rel), content);
  }
  return { input, output: path.join(scratch, `out-${counter}`) };
}

async function buildError(input: string, output: string): Promise<DocsBuildError> {
  try {
    await buildDocsSite(input, output);
  } catch (error) {
    assert.ok(error instanceof DocsBuildError, `expected a DocsBuildError, got ${String(error)}`);
    return error;
  }
  assert.fail('the build succeeded');
}

describe('buildDocsSite: a realistic docs tree', () => {
  let output: string;
  let result: DocsBuildResult;
  const page = (rel: string): Promise<string> => readFile(path.join(output, rel), 'utf8');

  before(async () => {
    output = path.join(scratch, 'realistic');
    result = await buildDocsSite(fixture, output);
  });

  it('builds every published page, the generated files and the assets', async () => {
    assert.equal(result.pages, 8);
    assert.deepEqual(result.warnings, [
      { file: 'index.md', message: '<script> is not in the allowed HTML subset and was removed' },
    ]);
    for (const rel of [
      'index.html',
      'guide/index.html',
      'guide/install/index.html',
      'guide/configure/index.html',
      'reference/index.html',
      'reference/api/endpoints/index.html',
      '404.html',
      'sitemap.xml',
      'robots.txt',
      'images/logo.svg',
    ]) {
      await readFile(path.join(output, rel));
    }
    const generated = await readdir(path.join(output, '_blume'));
    assert.equal(generated.filter((name) => /^blume\.[0-9a-f]{10}\.(css|js)$/.test(name)).length, 2);
    assert.deepEqual(
      (await readdir(path.join(output, '_blume/search'))).filter((name) => /^[0-9a-f]{10}$/.test(name)).length,
      1,
    );
    assert.ok(result.timings.totalMs >= 0);
  });

  it('skips drafts everywhere', async () => {
    await assert.rejects(readFile(path.join(output, 'guide/secret-roadmap/index.html')));
    assert.doesNotMatch(await page('index.html'), /Roadmap/);
    assert.doesNotMatch(await page('sitemap.xml'), /roadmap/);
  });

  it('orders the navigation by blume.json, then front matter order, and marks the current page', async () => {
    const html = await page('guide/configure/index.html');
    const nav = html.slice(html.indexOf('<nav class="sidebar"'), html.indexOf('</nav>'));
    const links = [...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(links, [
      '/',
      '/guide/',
      '/guide/install/',
      '/guide/configure/',
      '/reference/',
      '/reference/glossary/',
      '/reference/api/',
      '/reference/api/endpoints/',
    ]);
    assert.match(nav, /<a href="\/guide\/configure\/" aria-current="page">Configure<\/a>/);
    assert.match(nav, /<a href="\/guide\/">Guide<\/a><details open><summary aria-label="Guide"><\/summary>/);
    assert.match(nav, /<a href="\/reference\/">Reference<\/a><details><summary aria-label="Reference"><\/summary>/);
    assert.match(html, /<a class="prev" href="\/guide\/install\/" rel="prev">/);
  });

  it('shows a breadcrumb trail above pages in sections, and the logo as the favicon', async () => {
    const html = await page('reference/api/endpoints/index.html');
    assert.match(
      html,
      new RegExp(
        '<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/">[^<]+</a></li>' +
          '<li><a href="/reference/">Reference</a></li><li><a href="/reference/api/">[^<]+</a></li></ol></nav>',
      ),
    );
    assert.doesNotMatch(
      await page('guide/index.html'),
      /class="breadcrumbs"/,
      'a top-level section: the brand is home',
    );
    assert.match(html, /<link rel="icon" href="\/images\/logo.svg">/);
    assert.doesNotMatch(html, /class="site-tabs"/, 'tabs only when blume.json asks');
  });

  it('gives headings anchors, custom ids and a table of contents', async () => {
    const html = await page('guide/configure/index.html');
    assert.match(html, /<h2 id="the-config-file">The config file<a class="anchor" href="#the-config-file"/);
    assert.match(html, /<h3 id="env-vars">Environment<a class="anchor" href="#env-vars"/);
    assert.match(
      html,
      /<li class="level-2"><a href="#the-config-file">The config file<\/a><\/li>\n<li class="level-3"><a href="#env-vars">Environment<\/a><\/li>/,
    );
    assert.match(html, /<h1>Configure<\/h1>/);
  });

  it('highlights code on the server', async () => {
    const html = await page('guide/configure/index.html');
    assert.match(
      html,
      /<pre class="code" data-lang="ts"><code class="hljs language-ts"><span class="hljs-keyword">export<\/span>/,
    );
  });

  it('rewrites links between Markdown files and to assets, keeping anchors', async () => {
    const home = await page('index.html');
    assert.match(home, /<a href="\/guide\/install\/">installation guide<\/a>/);
    assert.match(home, /<a href="\/reference\/api\/endpoints\/#list-widgets">API reference<\/a>/);
    assert.match(home, /<a href="https:\/\/acme.test">https:\/\/acme.test<\/a>/);
    const install = await page('guide/install/index.html');
    assert.match(install, /<a href="\/guide\/configure\/#the-config-file">Configure<\/a>/);
    assert.match(install, /<img src="\/images\/logo.svg" alt="Logo">/);
    assert.match(await page('reference/api/endpoints/index.html'), /<a href="\/guide\/">guide<\/a>/);
  });

  it('renders GitHub extensions and drops unsafe raw HTML', async () => {
    const home = await page('index.html');
    assert.match(home, /<s>slow<\/s>/);
    assert.match(home, /<div class="table-wrap"><table>/);
    assert.match(home, /<input type="checkbox" class="task" disabled checked \/> Fast/);
    assert.match(home, /<li id="fn1" class="footnote-item">/);
    assert.doesNotMatch(home.slice(home.indexOf('<article')), /script|alert/);
  });

  it('writes sitemap.xml, robots.txt, 404.html, link preview tags and the search index', async () => {
    const sitemap = await page('sitemap.xml');
    assert.match(sitemap, /<loc>https:\/\/docs.acme.test\/guide\/install\/<\/loc>/);
    assert.equal([...sitemap.matchAll(/<loc>/g)].length, 8);
    assert.match(await page('404.html'), /<h1>Page not found<\/h1>/);
    assert.equal(await page('robots.txt'), 'User-agent: *\nAllow: /\nSitemap: https://docs.acme.test/sitemap.xml\n');
    const home = await page('index.html');
    assert.match(home, /<meta property="og:title" content="Welcome to Acme">/);
    assert.match(home, /<meta property="og:image" content="https:\/\/docs.acme.test\/images\/logo.svg">/);
    assert.match(home, /<meta name="twitter:card" content="summary_large_image">/);
    const indexUrl = /data-index="([^"]+)"/.exec(home)![1]!;
    const index = JSON.parse(await page(`${indexUrl.slice(1)}${SEARCH_INDEX_FILE}`)) as SearchIndex;
    const shard = JSON.parse(await page(`${indexUrl.slice(1)}${wordFile(index.wordFiles, 're')}`)) as Record<
      string,
      number[]
    >;
    const sections = JSON.parse(await page(`${indexUrl.slice(1)}s0.json`)) as string[][];
    const hit = sections[Math.floor(shard.requirements![0]! / 4)]!;
    assert.deepEqual(hit.slice(0, 4), ['Requirements', 'Install', '/guide/install/#requirements', 'Guide']);
    assert.match(hit[4]!, /Node\.js 20/);
    assert.match(home, /<link rel="canonical" href="https:\/\/docs.acme.test\/">/);
    assert.match(home, /<img src="\/images\/logo.svg" alt="">/);
  });
});

describe('buildDocsSite: refusing bad content', () => {
  it('fails a broken internal link naming the file and line', async () => {
    const { input, output } = await docsTree({
      'index.md': '# Home\n\nSee [the guide](guide.md).\n',
      'guide.md': '---\ntitle: Guide\n---\n\nIntro.\n\nA [missing page](nope.md) and\n[another](../outside.md).\n',
    });
    const error = await buildError(input, output);
    assert.deepEqual(
      error.problems.map((p) => `${p.code} ${p.file}:${p.line}`),
      ['broken_link guide.md:7', 'link_outside_root guide.md:8'],
    );
    assert.match(error.message, /guide\.md:7: broken link "nope\.md": links to a page that does not exist/);
  });

  it('fails a link to a draft page', async () => {
    const { input, output } = await docsTree({
      'index.md': '[soon](soon.md)\n',
      'soon.md': '---\ndraft: true\n---\nlater\n',
    });
    const error = await buildError(input, output);
    assert.match(error.message, /index\.md:1: broken link "soon\.md": links to a draft page/);
  });

  it('fails invalid front matter with the file and line', async () => {
    const yaml = await docsTree({ 'index.md': '---\ntitle: ok\norder: [1, 2\n---\n# Hi\n' });
    const yamlError = await buildError(yaml.input, yaml.output);
    assert.equal(yamlError.problems[0]?.code, 'front_matter');
    assert.match(yamlError.message, /^index\.md:\d+: front matter is not valid YAML/);
    const type = await docsTree({ 'index.md': '# Home\n', 'a.md': '---\norder: first\n---\n' });
    assert.match(
      (await buildError(type.input, type.output)).message,
      /a\.md: front matter field "order" must be a number, got string "first"/,
    );
    const unclosed = await docsTree({ 'index.md': '---\ntitle: x\n# no end\n' });
    assert.match(
      (await buildError(unclosed.input, unclosed.output)).message,
      /index\.md:1: front matter starts with --- but has no closing/,
    );
  });

  it('fails invalid UTF-8 naming the file', async () => {
    const { input, output } = await docsTree({
      'index.md': '# Home\n',
      'latin1.md': Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]),
    });
    const error = await buildError(input, output);
    assert.equal(error.problems[0]?.code, 'invalid_utf8');
    assert.match(error.message, /latin1\.md:1: is not valid UTF-8/);
  });

  it('fails a symbolic link, even one pointing outside the docs folder', async () => {
    const { input, output } = await docsTree({ 'index.md': '# Home\n' });
    await symlink('/etc/passwd', path.join(input, 'passwd.md'));
    await symlink('/etc', path.join(input, 'etc'));
    const error = await buildError(input, output);
    assert.deepEqual(
      error.problems.map((p) => `${p.code} ${p.file}`),
      ['symlink etc', 'symlink passwd.md'],
    );
  });

  it('fails hostile file names and two sources published at one URL', async () => {
    const hostile = await docsTree({ 'index.md': '# Home\n', 'bad\nname.md': 'x\n' });
    assert.match(
      (await buildError(hostile.input, hostile.output)).message,
      /bad\\nname\.md: the file name has control characters/,
    );
    const clash = await docsTree({ 'index.md': '# Home\n', 'a.md': 'a\n', 'a/index.md': 'b\n' });
    assert.match((await buildError(clash.input, clash.output)).message, /is published at \/a\/, as is/);
    const reserved = await docsTree({ 'index.md': '# Home\n', '_blume/x.css': 'a{}' });
    assert.match(
      (await buildError(reserved.input, reserved.output)).message,
      /_blume\/x\.css: uses a name Blume generates/,
    );
  });

  it('enforces the output size limit', async () => {
    const { input, output } = await docsTree({ 'index.md': '# Home\n', 'big.bin': Buffer.alloc(200_000) });
    await assert.rejects(buildDocsSite(input, output, { maxOutputBytes: 100_000 }), (error: unknown) => {
      assert.ok(error instanceof DocsBuildError);
      assert.equal(error.problems[0]?.code, 'output_too_large');
      return true;
    });
  });
});

describe('buildDocsSite: smaller rules', () => {
  it('takes site settings from the root front matter, makes pages for folders without one, and warns about unknown languages', async () => {
    const { input, output } = await docsTree({
      'index.md': '---\nsite:\n  title: Tiny\n---\nHello.\n',
      'notes/one.md': '# One\n\n```klingon\nqapla\n```\n',
    });
    const result = await buildDocsSite(input, output, { siteUrl: 'https://tiny.test/' });
    const home = await readFile(path.join(output, 'index.html'), 'utf8');
    assert.match(home, /<title>Tiny<\/title>/);
    const section = await readFile(path.join(output, 'notes/index.html'), 'utf8');
    assert.match(section, /<h1>Notes<\/h1>/);
    assert.match(section, /<li><a href="\/notes\/one\/">One<\/a><\/li>/);
    assert.deepEqual(
      result.warnings.map((w) => `${w.file}:${w.line}`),
      ['notes/one.md:3'],
    );
    assert.match(
      await readFile(path.join(output, 'sitemap.xml'), 'utf8'),
      /<loc>https:\/\/tiny.test\/notes\/one\/<\/loc>/,
    );
  });

  it('shows top-level sections as tabs when blume.json asks, and a default favicon without a logo', async () => {
    const { input, output } = await docsTree({
      'blume.json': JSON.stringify({ title: 'Tabs', tabs: true }),
      'index.md': '# Home\n',
      'start.md': '# Start\n',
      'guide/index.md': '# Guide\n',
      'guide/deep/index.md': '# Deep\n',
      'guide/deep/page.md': '# Page\n',
      'api/index.md': '# API\n',
    });
    await buildDocsSite(input, output);
    const tabs = async (rel: string): Promise<string> => {
      const html = await readFile(path.join(output, rel), 'utf8');
      return /<nav class="site-tabs" aria-label="Sections">(.*?)<\/nav>/.exec(html)![1]!;
    };
    const current = '<a href="/guide/" aria-current="true">Guide</a>';
    assert.equal(await tabs('guide/deep/page/index.html'), `<a href="/">Home</a><a href="/api/">API</a>${current}`);
    assert.match(await tabs('start/index.html'), /^<a href="\/" aria-current="true">Home<\/a>/);
    assert.match(await tabs('api/index.html'), /<a href="\/api\/" aria-current="true">API<\/a>/);
    const html = await readFile(path.join(output, 'index.html'), 'utf8');
    const icon = /<link rel="icon" href="\/(_blume\/icon\.[0-9a-f]{10}\.svg)">/.exec(html)![1]!;
    assert.match(await readFile(path.join(output, icon), 'utf8'), /^<svg /);
    await assert.rejects(
      buildDocsSite((await docsTree({ 'blume.json': '{"tabs":"yes"}', 'index.md': '# A\n' })).input, `${output}-2`),
      /site setting "tabs" must be true or false/,
    );
  });

  it('ships the Mermaid renderer only with a site that has a diagram, named only by the pages that have one', async () => {
    const { input, output } = await docsTree({
      'index.md': '# Home\n',
      'flow.md': '# Flow\n\n```mermaid\ngraph LR\n  A[Write] --> B[Deploy]\n```\n',
    });
    await buildDocsSite(input, output);
    const flow = await readFile(path.join(output, 'flow/index.html'), 'utf8');
    const url = /<html lang="en" data-diagrams="\/(_blume\/mermaid\.[0-9a-f]{10}\.js)">/.exec(flow)![1]!;
    assert.match(flow, /<code class="hljs language-mermaid">graph LR\n {2}A\[Write\] --&gt; B\[Deploy\]/);
    assert.match(await readFile(path.join(output, url), 'utf8'), /mermaid/);
    assert.doesNotMatch(await readFile(path.join(output, 'index.html'), 'utf8'), /data-diagrams/);
    const plain = await docsTree({ 'index.md': '# Home\n' });
    await buildDocsSite(plain.input, plain.output);
    assert.ok(!(await readdir(path.join(plain.output, '_blume'))).some((name) => name.startsWith('mermaid.')));
  });

  it('refuses to build into a folder that is not empty', async () => {
    const { input, output } = await docsTree({ 'index.md': '# Home\n' });
    await cp(input, output, { recursive: true });
    await assert.rejects(buildDocsSite(input, output), /is not empty/);
  });
});
