import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainTitle, renderBody, slugify } from './markdown.js';

describe('forum markdown', () => {
  it('renders Markdown and keeps raw HTML as text', () => {
    const { html, text } = renderBody('# Hi\n\n<script>alert(1)</script> **bold** <img src=x onerror=alert(1)>');
    assert.match(html, /<h1>Hi<\/h1>/);
    assert.match(html, /<strong>bold<\/strong>/);
    assert.doesNotMatch(html, /<script|<img/i);
    assert.match(html, /&lt;script&gt;/);
    assert.match(text, /<script>alert\(1\)<\/script>/);
  });

  it('drops dangerous links and marks the rest as user content', () => {
    const { html } = renderBody(
      '[a](javascript:alert(1)) [b](data:text/html,x) [c](https://example.com) ![i](https://example.com/i.png)',
    );
    assert.doesNotMatch(html, /href="(javascript|data):/);
    assert.match(html, /<a href="https:\/\/example.com" rel="nofollow ugc noopener noreferrer">c<\/a>/);
    assert.match(
      html,
      /<img src="https:\/\/example.com\/i.png" alt="i" \/>|<img src="https:\/\/example.com\/i.png" alt="i">/,
    );
  });

  it('links @mentions to profiles, outside links, code and mail addresses', () => {
    const { html, text } = renderBody(
      'Hi @Ann and @bob.\n\nMail cy@example.test, `@code` and [@link](https://example.com) stay; **@dee-** too',
    );
    assert.match(html, /Hi <a href="\/u\/Ann" class="mention" rel="nofollow ugc noopener noreferrer">@Ann<\/a> and /);
    assert.match(html, /<a href="\/u\/bob" class="mention"[^>]*>@bob<\/a>\./);
    assert.match(html, /<strong><a href="\/u\/dee" class="mention"[^>]*>@dee<\/a>-<\/strong>/);
    assert.equal(html.match(/class="mention"/g)?.length, 3, 'not the address, the code or the link');
    assert.match(text, /Hi @Ann and @bob\./);
    const mail = renderBody('Thanks @ann\nsecond line', { lineBreaks: true });
    assert.match(mail.html, /<a href="\/u\/ann" class="mention"/);
    assert.doesNotMatch(renderBody('hi @ann', { links: false }).html, /<a /, 'held posts show no links');
  });

  it('highlights fenced code with a known language, as docs builds do, and nothing else', () => {
    const { html, text } = renderBody(
      '```ts\nconst s: number = 1; // one\nclass A { run() { return "x<y"; } }\n```\n\n```\n<b>plain</b>\n```\n\n' +
        '```nosuchlang\nkeep <i>\n```',
    );
    assert.match(
      html,
      /<pre><code tabindex="0" class="language-ts"><span class="hljs-keyword">const<\/span> <span class="hljs-attr">s<\/span>: <span class="hljs-built_in">number<\/span>/,
    );
    assert.match(html, /<span class="hljs-comment">\/\/ one<\/span>/);
    assert.match(html, /<span class="hljs-title class_">A<\/span>/);
    assert.match(html, /<span class="hljs-string">"x&lt;y"<\/span>/);
    assert.match(html, /<pre><code tabindex="0">&lt;b&gt;plain&lt;\/b&gt;\n<\/code><\/pre>/);
    assert.match(html, /<pre><code tabindex="0" class="language-nosuchlang">keep &lt;i&gt;\n<\/code><\/pre>/);
    assert.match(text, /class A \{ run\(\) \{ return "x<y"; \} \}/);
  });

  it('keeps only highlight classes on spans: Markdown cannot smuggle other markup into code', () => {
    const { html } = renderBody('```html\n<span class="evil" onclick="x()">hi</span><script>1</script>\n```');
    assert.doesNotMatch(html, /<script|onclick="|class="evil"/);
    assert.match(html, /<span class="hljs-tag">/);
  });

  it('keeps titles as typed, one line, and slugs from them', () => {
    assert.equal(plainTitle('Why does <div> not center?'), 'Why does <div> not center?');
    assert.equal(
      plainTitle('<script>alert(1)</script>Hello <b>world</b>'),
      '<script>alert(1)</script>Hello <b>world</b>',
    );
    assert.equal(plainTitle('a < b and c > d'), 'a < b and c > d');
    assert.equal(plainTitle(' line\nbreak\u0000 '), 'line break');
    assert.equal(slugify('Héllo, World! 2'), 'hello-world-2');
    assert.equal(slugify('!!!'), 'topic');
  });
});
