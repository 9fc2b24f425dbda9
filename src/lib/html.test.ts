import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, html, trustedHtml } from './html.js';

describe('html escaping', () => {
  it('escapes each of the five special characters, wherever they stand', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
    assert.equal(escapeHtml('plain & simple'), 'plain &amp; simple');
    assert.equal(escapeHtml('"'), '&quot;');
    assert.equal(escapeHtml('&amp;'), '&amp;amp;', 'an entity in text is text');
  });

  it('answers text with nothing to escape as it is', () => {
    for (const text of ['', 'reader', '2026-11-27T18:19:19.762Z', 'Ünïcödé 漢字 — ok'])
      assert.equal(escapeHtml(text), text);
  });

  it('escapes interpolated values, joins arrays, and leaves SafeHtml and literal markup alone', () => {
    const name = '<script>alert(1)</script>';
    const page = html`<p title="${name}">${[name, 2, null, trustedHtml('<b>ok</b>')]}</p>`;
    assert.equal(
      page.value,
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;">&lt;script&gt;alert(1)&lt;/script&gt;2<b>ok</b></p>',
    );
  });
});
