import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mailHtmlView } from './html-view.js';

const LOGO = {
  contentId: 'logo@mail.example',
  contentType: 'image/png',
  url: '/api/helpdesk/v1/tickets/1/replies/e1/attachments/1',
};

describe('HTML mail shown to agents', () => {
  it('keeps tables, preformatted text, paragraphs and quotes', () => {
    const { html, blockedImages } = mailHtmlView(
      '<p>Order:</p><table border="1" style="width:900px"><tr><th>Item</th><th>Qty</th></tr>' +
        '<tr><td colspan="1">K6 arm</td><td>5</td></tr></table><pre>a  b\n  c</pre>' +
        '<blockquote type="cite"><p>Refunds within 30 days.</p></blockquote>',
      [],
      false,
    );
    assert.equal(
      html,
      '<p>Order:</p><table><tr><th>Item</th><th>Qty</th></tr><tr><td colspan="1">K6 arm</td><td>5</td></tr></table>' +
        '<pre>a  b\n  c</pre><blockquote><p>Refunds within 30 days.</p></blockquote>',
    );
    assert.equal(blockedImages, 0);
  });

  it('drops scripts, styles, handlers, frames, forms and every id, class and style', () => {
    const { html } = mailHtmlView(
      '<html><head><title>Hi</title><style>body{display:none}</style><link rel="stylesheet" href="https://x.example/a.css">' +
        '<meta http-equiv="refresh" content="0;url=https://x.example"><base href="https://x.example/"></head>' +
        '<body><div id="reply-body" class="panel" style="position:fixed;inset:0" onclick="alert(1)" data-key="r">Text</div>' +
        '<script>alert(1)</script><iframe src="https://x.example"></iframe><svg><image href="https://x.example/i.png"/></svg>' +
        '<form action="https://x.example"><input name="q"><button>Go</button></form>' +
        '<a href="javascript:alert(1)">bad</a> <a href="/desk/mine">inside</a> <a href="https://ok.example/">ok</a></body></html>',
      [],
      false,
    );
    assert.equal(
      html,
      '<div>Text</div>Go<a rel="noopener noreferrer nofollow" target="_blank">bad</a> ' +
        '<a rel="noopener noreferrer nofollow" target="_blank">inside</a> ' +
        '<a href="https://ok.example/" rel="noopener noreferrer nofollow" target="_blank">ok</a>',
    );
  });

  it('shows cid: images from the stored parts and leaves remote images out until asked', () => {
    const source =
      '<p><img src="cid:logo@mail.example" alt="Logo" width="40"><img src="CID:missing@x" alt="gone">' +
      '<img src="https://tracker.example/open.gif?id=7" alt="" width="1"><img src="http://cdn.example/chart.png" alt="Chart">' +
      '<img src="data:image/png;base64,iVBORw0KGgo=" alt="inline"><img src="data:text/html;base64,PHNjcmlwdD4=" alt="x">' +
      '<img src="/desk/tickets/1/triage" alt="self"><img srcset="https://x.example/a.png 2x" alt="set"></p>';
    const blocked = mailHtmlView(source, [LOGO, { ...LOGO, contentId: 'doc@x', contentType: 'text/html' }], false);
    assert.equal(
      blocked.html,
      `<p><img alt="Logo" width="40" src="${LOGO.url}" /><img alt="gone" /><img alt="(remote image)" width="1" />` +
        '<img alt="Chart" /><img src="data:image/png;base64,iVBORw0KGgo=" alt="inline" /><img alt="x" />' +
        '<img alt="self" /><img alt="set" /></p>',
    );
    assert.equal(blocked.blockedImages, 2);
    const shown = mailHtmlView(source, [LOGO], true);
    assert.match(shown.html, /<img src="https:\/\/tracker\.example\/open\.gif\?id=7" alt="" width="1" \/>/);
    assert.match(shown.html, /<img src="http:\/\/cdn\.example\/chart\.png" alt="Chart" \/>/);
    assert.equal(shown.blockedImages, 0);
  });
});
