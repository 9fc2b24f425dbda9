// Field and value names as the editor shows them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanName } from './labels.js';

describe('CMS editor labels', () => {
  it('reads machine names as people do', () => {
    assert.equal(humanName('released_on'), 'Released on');
    assert.equal(humanName('seo_title'), 'SEO title');
    assert.equal(humanName('cover_image'), 'Cover image');
    assert.equal(humanName('page_url'), 'Page URL');
    assert.equal(humanName('in-person'), 'In person');
    assert.equal(humanName('title'), 'Title');
    assert.equal(humanName('_'), '_');
  });
});
