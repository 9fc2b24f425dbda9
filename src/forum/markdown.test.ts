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
