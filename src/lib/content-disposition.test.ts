import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentDisposition, downloadName } from './content-disposition.js';

describe('Content-Disposition of user file names (RFC 6266)', () => {
  it('sends an ASCII name as it is', () => {
    assert.equal(contentDisposition('attachment', 'notes.txt'), 'attachment; filename="notes.txt"');
  });

  it('adds the UTF-8 form beside an ASCII fallback for any other name', () => {
    assert.equal(
      contentDisposition('inline', 'Réponse « finale ».pdf'),
      `inline; filename="Reponse _ finale _.pdf"; filename*=UTF-8''R%C3%A9ponse%20%C2%AB%20finale%20%C2%BB.pdf`,
    );
    assert.equal(
      contentDisposition('attachment', 'say "hi" 100%.txt'),
      `attachment; filename="say _hi_ 100_.txt"; filename*=UTF-8''say%20%22hi%22%20100%25.txt`,
    );
  });

  it('never offers a path or a control character', () => {
    assert.equal(downloadName('../../etc/passwd'), '_.._etc_passwd');
    assert.equal(downloadName('..\\..\\boot.ini'), '_.._boot.ini');
    assert.equal(downloadName('a\r\nContent-Type: text/html'), 'aContent-Type: text_html');
    assert.equal(downloadName('...'), 'attachment');
    assert.doesNotMatch(contentDisposition('attachment', 'a\r\nb/c'), /[\r\n/]/);
  });
});
