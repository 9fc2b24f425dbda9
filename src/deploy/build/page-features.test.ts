import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildDocsSite, type DocsBuildResult } from './docs-site.js';

let scratch: string;
before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'blume-docs-features-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

let counter = 0;
async function build(
  files: Record<string, string>,
  options: Parameters<typeof buildDocsSite>[2] = {},
): Promise<{ result: DocsBuildResult; page: (rel: string) => Promise<string> }> {
  counter += 1;
  const input = path.join(scratch, `in-${counter}`);
  const output = path.join(scratch, `out-${counter}`);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(input, rel)), { recursive: true });
    await writeFile(path.join(input, rel), content);
  }
  const result = await buildDocsSite(input, output, { siteUrl: 'https://features.test', ...options });
  return { result, page: (rel) => readFile(path.join(output, rel), 'utf8') };
}

function article(html: string): string {
  return html.slice(html.indexOf('<article'), html.indexOf('</article>'));
}

describe('docs pages: raw HTML', () => {
  it('passes the safe subset, drops the rest with one warning per construct, and keeps it out of descriptions', async () => {
    const { result, page } = await build({
      'index.md': [
        '<h1 align="center">Fastify</h1>',
        '',
        '## Factory',
        '<a id="factory"></a>',
        '',
        'Creates <code><b>Fastify server</b></code> instances<sup>1</sup>.',
        '',
        '<details>',
        '<summary>More</summary>',
        '',
        'Hidden **text**.',
        '',
        '</details>',
        '',
        '<script>alert(1)</script><script>alert(2)</script>',
        '<img src="x.png" onerror="alert(3)" alt="x"> <a href="javascript:alert(4)">bad</a> <a href="https://ok.test">ok</a>',
        '',
        '<iframe src="https://evil.test"></iframe>',
        '',
        '<div style="color:red" onclick="alert(5)">styled</div>',
        '',
        '# Another top heading',
      ].join('\n'),
      'x.png': '',
    });
    const html = await page('index.html');
    const body = article(html);
    assert.match(body, /<h1 align="center">Fastify<\/h1>/);
    assert.equal([...html.matchAll(/<h1\b/g)].length, 1, 'one H1 per page');
    assert.match(body, /<h2 id="another-top-heading">Another top heading/);
    assert.match(body, /<a id="factory"><\/a>/);
    assert.match(body, /<code><b>Fastify server<\/b><\/code> instances<sup>1<\/sup>/);
    assert.match(body, /<details>\n<summary>More<\/summary>\n<p>Hidden <strong>text<\/strong>.<\/p>\n<\/details>/);
    assert.doesNotMatch(body, /script|alert|onerror|onclick|javascript|iframe|style=/i);
    assert.match(body, /<img src="x.png" alt="x" \/>/);
    assert.match(body, /<a>bad<\/a> <a href="https:\/\/ok.test">ok<\/a>/);
    assert.match(body, /<div>styled<\/div>/);
    assert.deepEqual(result.warnings.map((w) => w.message).sort(), [
      '<iframe> is not in the allowed HTML subset and was removed',
      '<script> is not in the allowed HTML subset and was removed',
      'a javascript URL in <a href> was removed',
      'attribute "onclick" on <div> is not allowed and was removed',
      'attribute "onerror" on <img> is not allowed and was removed',
      'attribute "style" on <div> is not allowed and was removed',
    ]);
    assert.match(html, /<title>Fastify · Documentation<\/title>/);
    assert.match(html, /<meta name="description" content="Creates Fastify server instances1.">/);
  });
});

describe('docs pages: callouts and tabs', () => {
  it('renders GitHub alerts, ::: containers and !!! admonitions as callouts', async () => {
    const { page } = await build({
      'index.md': [
        '# Home',
        '',
        '> [!WARNING]',
        '> Do **not** do this.',
        '',
        '> [!tip]',
        '> Lower case works too.',
        '',
        '> A plain quote.',
        '',
        ':::note Before you start',
        'You need `node`.',
        ':::',
        '',
        ':::danger',
        '- one',
        ':::',
        '',
        '!!! caution "Mind the gap"',
        '    Indented *content*.',
        '',
        'After.',
      ].join('\n'),
    });
    const body = article(await page('index.html'));
    assert.match(
      body,
      /<div class="callout callout-warning" role="note"><p class="callout-title">Warning<\/p>\n<p>Do <strong>not<\/strong> do this.<\/p>\n<\/div>/,
    );
    assert.match(
      body,
      /<div class="callout callout-tip" role="note"><p class="callout-title">Tip<\/p>\n<p>Lower case works too.<\/p>/,
    );
    assert.match(body, /<blockquote>\n<p>A plain quote.<\/p>\n<\/blockquote>/);
    assert.match(
      body,
      /<div class="callout callout-note" role="note"><p class="callout-title">Before you start<\/p>\n<p>You need <code>node<\/code>.<\/p>\n<\/div>/,
    );
    assert.match(
      body,
      /<div class="callout callout-danger" role="note"><p class="callout-title">Danger<\/p>\n<ul>\n<li>one<\/li>\n<\/ul>\n<\/div>/,
    );
    assert.match(
      body,
      /<div class="callout callout-caution" role="note"><p class="callout-title">Mind the gap<\/p>\n<p>Indented <em>content<\/em>.<\/p>\n<\/div>\n<p>After.<\/p>/,
    );
  });

  it('renders === tabs as radio buttons and panels, code inside intact', async () => {
    const { page } = await build({
      'index.md': [
        '# Install',
        '',
        '=== "npm"',
        '',
        '    ```bash',
        '    npm install fastify',
        '    ```',
        '',
        '=== "yarn"',
        '',
        '    ```bash',
        '    yarn add fastify',
        '    ```',
        '',
        'Then run it.',
        '',
        '=== "npm"',
        '    Second group.',
      ].join('\n'),
    });
    const body = article(await page('index.html'));
    assert.match(
      body,
      /<div class="tabs">\n<input type="radio" class="tab-input" name="tabs-1" id="tabs-1-0" data-label="npm" checked><label class="tab-label" for="tabs-1-0">npm<\/label><div class="tab-panel">\n<pre class="code" data-lang="bash"><code class="hljs language-bash">npm install fastify\n<\/code><\/pre>\n<\/div>\n<input type="radio" class="tab-input" name="tabs-1" id="tabs-1-1" data-label="yarn"><label class="tab-label" for="tabs-1-1">yarn<\/label><div class="tab-panel">\n<pre class="code" data-lang="bash"><code class="hljs language-bash">yarn add fastify\n<\/code><\/pre>\n<\/div>\n<\/div>\n<p>Then run it.<\/p>/,
    );
    assert.match(body, /name="tabs-2" id="tabs-2-0" data-label="npm" checked/);
  });
});

describe('docs pages: code', () => {
  it('highlights the added languages, shows titles and highlighted lines', async () => {
    const fence = (info: string, code: string): string => `\`\`\`${info}\n${code}\n\`\`\`\n`;
    const { result, page } = await build({
      'index.md': [
        '# Code',
        fence('http', 'GET /users HTTP/1.1\nHost: example.test'),
        fence('dockerfile', 'FROM node:22\nRUN npm ci'),
        fence('nginx', 'server {\n  listen 80;\n}'),
        fence('hcl', 'resource "aws_instance" "web" {\n  ami = "abc" # image\n}'),
        fence('ini', '[core]\nname = blume'),
        fence('conf', '[core]\nname = blume'),
        fence('svelte', '<script>\n  let count = 0;\n</script>\n<button>{count}</button>'),
        fence('js title="server.js" {2}', 'const a = `x\ny`;\nconst b = 2;'),
        fence('py hl_lines="1 3"', 'a = 1\nb = 2\nc = 3'),
      ].join('\n'),
    });
    assert.deepEqual(result.warnings, []);
    const body = article(await page('index.html'));
    for (const lang of ['http', 'dockerfile', 'nginx', 'hcl', 'ini', 'conf', 'svelte']) {
      const block = new RegExp(`<code class="hljs language-${lang}">([\\s\\S]*?)</code>`).exec(body)?.[1] ?? '';
      assert.match(block, /<span class="hljs-/, `${lang} is highlighted`);
    }
    assert.match(
      body,
      /<div class="code-block"><div class="code-title">server.js<\/div>\n<pre class="code" data-lang="js">/,
    );
    // The template string spans lines 1-2: its span is closed and reopened around the highlighted line.
    assert.match(
      body,
      /<code class="hljs language-js"><span class="hljs-keyword">const<\/span> a = <span class="hljs-string">`x<\/span>\n<span class="line highlighted"><span class="hljs-string">y`<\/span>;<\/span>\n/,
    );
    assert.match(
      body,
      /<span class="line highlighted">a = <span class="hljs-number">1<\/span><\/span>\nb = <span class="hljs-number">2<\/span>\n<span class="line highlighted">c = /,
    );
  });
});

describe('docs pages: publishing metadata', () => {
  it('shows an edit link and the last-updated date, and puts lastmod in the sitemap', async () => {
    const { page } = await build(
      {
        'blume.json': JSON.stringify({
          title: 'Meta',
          url: 'https://meta.test',
          editUrl: 'https://git.test/acme/docs/edit/main/docs',
        }),
        'index.md': '# Home\n\nHello.\n',
        'guide/start here.md': '# Start\n\nGo.\n',
      },
      { pageDates: new Map([['guide/start here.md', new Date('2026-03-04T05:06:07Z')]]) },
    );
    const start = await page('guide/start here/index.html');
    assert.match(
      start,
      /<a class="edit-link" href="https:\/\/git.test\/acme\/docs\/edit\/main\/docs\/guide\/start%20here.md">Edit this page<\/a>/,
    );
    assert.match(
      start,
      /<p class="last-updated">Last updated <time datetime="2026-03-04T05:06:07.000Z">March 4, 2026<\/time><\/p>/,
    );
    assert.doesNotMatch(await page('index.html'), /last-updated/);
    const sitemap = await page('sitemap.xml');
    assert.match(
      sitemap,
      /<url><loc>https:\/\/features.test\/guide\/start%20here\/<\/loc><lastmod>2026-03-04T05:06:07.000Z<\/lastmod><\/url>/,
    );
    assert.match(sitemap, /<url><loc>https:\/\/features.test\/<\/loc><\/url>/);
  });
});

describe('docs pages: math', () => {
  it('renders $inline$, $$ blocks and math fences to MathML, leaves prices alone, and shows bad TeX as code with a warning', async () => {
    const { result, page } = await build({
      'index.md': [
        '# Math',
        '',
        'Euler: $e^{i\\pi} + 1 = 0$, while the book costs $5 and the pen $10.',
        '',
        '$$',
        '\\int_0^1 x^2\\,dx = \\frac{1}{3}',
        '$$',
        '',
        '```math',
        '\\sqrt{2}',
        '```',
        '',
        'Broken: $\\frac{1}{$ here.',
        '',
        // Raw HTML on the page: the sanitizer runs, and the formulas still arrive whole.
        'Raw <sup>HTML</sup> beside $a_1$.',
        '',
        '<math><mi>raw</mi></math>',
      ].join('\n'),
    });
    const body = article(await page('index.html'));
    assert.match(
      body,
      /Euler: <span class="katex"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML"><semantics><mrow><msup><mi>e<\/mi>/,
    );
    assert.match(body, /the book costs \$5 and the pen \$10\./);
    assert.match(
      body,
      /<div class="math-display"><span class="katex"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML" display="block"><semantics><mrow><msubsup><mo>∫<\/mo>/,
    );
    assert.match(
      body,
      /<div class="math-display"><span class="katex"><math [^>]*display="block"><semantics><mrow><msqrt><mn>2<\/mn><\/msqrt>/,
    );
    assert.match(body, /Broken: <code>\\frac\{1\}\{<\/code> here\./);
    assert.ok(
      result.warnings.some((w) => w.file === 'index.md' && /math could not be rendered/.test(w.message)),
      JSON.stringify(result.warnings),
    );
    assert.match(
      body,
      /Raw <sup>HTML<\/sup> beside <span class="katex"><math [^>]*><semantics><mrow><msub><mi>a<\/mi><mn>1<\/mn><\/msub>/,
    );
    // Authors' own MathML is not in the safe subset; no slot is left unfilled.
    assert.doesNotMatch(body, /<mi>raw<\/mi>|data-blume-math/);
  });
});

describe('docs pages: the site language', () => {
  it("writes the page shell, callout titles, the 404 page and the client script's words in the site's language", async () => {
    const files = (language: string): Record<string, string> => ({
      'blume.json': JSON.stringify({ title: 'Handbuch', language, editUrl: 'https://git.test/edit' }),
      'index.md':
        '# Start\n\n> [!WARNING]\n> Heiß.\n\n:::tip\nKalt.\n:::\n\n!!! note "Eigener Titel"\n    Lau.\n\n## Teil\n\nText.\n\n```js\nlet a;\n```\n',
      'b.md': '# B\n',
    });
    const german = await build(files('de'), { pageDates: new Map([['index.md', new Date('2026-03-04T05:06:07Z')]]) });
    const home = await german.page('index.html');
    assert.match(
      home,
      /^<!doctype html>\n<html lang="de" data-copy="Kopieren" data-copied="Kopiert" data-no-results="Keine Ergebnisse">/,
    );
    assert.match(home, /<p class="callout-title">Warnung<\/p>/);
    assert.match(home, /<p class="callout-title">Tipp<\/p>/);
    assert.match(home, /<p class="callout-title">Eigener Titel<\/p>/, "an author's own title stays");
    assert.match(home, /<h2 id="toc-title">Auf dieser Seite<\/h2>/);
    assert.match(home, /<a class="edit-link" [^>]*>Diese Seite bearbeiten<\/a>/);
    assert.match(home, /<p class="last-updated">Zuletzt aktualisiert am <time [^>]*>4. März 2026<\/time>/);
    assert.match(home, /<span>Weiter<\/span>B<\/a>/);
    assert.match(home, /placeholder="Suchen \(\/ drücken\)" aria-label="Die Dokumentation durchsuchen"/);
    assert.match(home, /<a class="skip" href="#content">Zum Inhalt springen<\/a>/);
    assert.match(
      await german.page('404.html'),
      /<h1>Seite nicht gefunden<\/h1>\n<p>Unter dieser Adresse gibt es keine Seite\. .* beginnen Sie bei <a href="\/">Start<\/a>\.<\/p>/,
    );

    // A region picks its language's set; Traditional Chinese has none and reads English.
    assert.match(await (await build(files('pt-BR'))).page('index.html'), /<p class="callout-title">Dica<\/p>/);
    const traditional = await (await build(files('zh-TW'))).page('index.html');
    assert.match(traditional, /^<!doctype html>\n<html lang="zh-TW">/);
    assert.match(traditional, /<p class="callout-title">Tip<\/p>/);
  });
});
