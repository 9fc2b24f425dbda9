import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { htmlToText, MAX_HTML_CHARS } from './html-text.js';

/** Milliseconds one conversion takes, the best of three (the first run of a shape warms the JIT). */
function timed(html: string): number {
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    htmlToText(html);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe('HTML mail as text', () => {
  it('keeps table rows on their lines with cells separated', () => {
    const html =
      '<table><tr><th>Item</th><th>Qty</th><th>Unit price</th></tr>' +
      '<tr><td>K6 arm</td><td>5</td><td>1,499 EUR</td></tr>' +
      '<tr><td>Mount</td><td>2</td><td>80 EUR</td></tr></table><p>Total below.</p>';
    assert.equal(
      htmlToText(html),
      'Item | Qty | Unit price\nK6 arm | 5 | 1,499 EUR\nMount | 2 | 80 EUR\n\nTotal below.',
    );
  });

  it("keeps a row on its line when each cell is a paragraph (Outlook's tables), and a layout cell's paragraphs apart", () => {
    const outlook =
      '<p class=MsoNormal>Our order:</p><table class=MsoTableGrid><tr><td><p class=MsoNormal>Item<o:p></o:p></p></td>' +
      '<td><p class=MsoNormal>Qty</p></td></tr><tr><td><p class=MsoNormal>K6 arm</p></td><td><p>5</p></td></tr></table>' +
      '<p class=MsoNormal>Thanks</p>';
    assert.equal(htmlToText(outlook), 'Our order:\n\nItem | Qty\nK6 arm | 5\n\nThanks');
    const layout = '<table><tr><td><p>Hello,</p><p>the log is below.</p><div>Erin</div></td></tr></table><p>After</p>';
    assert.equal(htmlToText(layout), 'Hello,\n\nthe log is below.\n\nErin\n\nAfter');
  });

  it('keeps <pre> lines and spaces, paragraphs, line breaks and lists', () => {
    const html =
      '<p>Hello,</p><p>the log:</p><pre>ERROR  at line 1\n  caused by: disk\n    full</pre>' +
      '<div>First line<br>second line<br><br>after a gap</div><ul><li>one</li><li>two</li></ul>' +
      '<p>Price &lt; 5&nbsp;&euro; &amp; more</p>';
    assert.equal(
      htmlToText(html),
      'Hello,\n\nthe log:\n\nERROR  at line 1\n  caused by: disk\n    full\n\nFirst line\nsecond line\n\nafter a gap\n\n- one\n- two\n\nPrice < 5 € & more',
    );
  });

  it('keeps a blockquote, marked, and drops styles, scripts and the head', () => {
    const html =
      '<html><head><title>x</title><style>p { color: red }</style></head><body>' +
      '<p>As your page says:</p><blockquote><p>Refunds within 30 days.</p><p>No questions.</p></blockquote>' +
      '<p>So please refund.</p><script>alert(1)</script></body></html>';
    assert.equal(
      htmlToText(html),
      'As your page says:\n\n> Refunds within 30 days.\n>\n> No questions.\n\nSo please refund.',
    );
  });

  it('takes time in proportion to the input, whatever the markup (no quadratic case)', () => {
    const base = timed('<p>word</p>'.repeat(10_000));
    for (const html of [
      '<'.repeat(80_000),
      '<style'.repeat(40_000),
      '<b>'.repeat(100_000),
      '<div><table><tr><td>'.repeat(10_000),
      '<a href="'.repeat(30_000),
      '<!--'.repeat(50_000),
    ]) {
      // The regexes this replaced took 6 s on the first of these.
      const ms = timed(html);
      assert.ok(ms < Math.max(200, base * 40), `${html.slice(0, 12)}... took ${ms.toFixed(0)} ms (base ${base})`);
    }
  });

  it('converts no more than MAX_HTML_CHARS', () => {
    const text = htmlToText('x'.repeat(MAX_HTML_CHARS) + ' after the cap');
    assert.equal(text.length, MAX_HTML_CHARS);
  });
});
