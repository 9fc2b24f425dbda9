// Front matter read without the YAML parser gives exactly what the parser gives, and every line it
// is unsure of goes to the parser.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDocument } from 'yaml';
import { parseSource, readSimpleFrontMatter } from './front-matter.js';

const KEYS = ['title', 'description', 'order', 'draft', 'tags', 'True', 'null', 'a-b_c', 'título', '__proto__', '1st'];
const VALUES = [
  'Page 3.7',
  'Page 0 of section 0',
  'a  b',
  'x(y)/z, w.',
  "it's",
  'ÄÖ ü',
  'yes',
  'no',
  'on',
  '3',
  '-12',
  '007',
  '-0',
  '0',
  '1e3',
  '0x1F',
  '.5',
  '12345678901234567890',
  'true',
  'false',
  'True',
  'FALSE',
  'null',
  'Null',
  '~',
  '',
  'tRuE',
  'a: b',
  'a #b',
  'a#b',
  '"quoted"',
  "'single'",
  '[1, 2]',
  '{a: 1}',
  '- item',
  '&anchor',
  '*alias',
  '!tag x',
  '|',
  '>',
  '@at',
  '`tick`',
  '%pct',
  'a\tb',
  'trailing   ',
  'Ünïcödé wörds',
  'e\u0301',
];

function viaYaml(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  return doc.errors.length > 0 ? 'error' : doc.toJS();
}

describe('front matter without the YAML parser', () => {
  it('reads every key: value line it accepts as YAML does, and passes the rest to YAML', () => {
    let accepted = 0;
    for (const key of KEYS) {
      for (const value of VALUES) {
        for (const text of [`${key}: ${value}\n`, `order: 1\n${key}: ${value}\ntitle: T\n`]) {
          const simple = readSimpleFrontMatter(text);
          if (simple === undefined) continue;
          accepted += 1;
          assert.deepEqual(simple, viaYaml(text), JSON.stringify(text));
        }
      }
    }
    // The common shapes take the fast path: it would be dead code otherwise.
    assert.ok(accepted > 100, `only ${accepted} accepted`);
    for (const text of [
      'title: A\ntitle: B\n',
      'title: A\n\norder: 2\n',
      'title: A # note\n',
      'title: A\r\n',
      '  title: A\n',
      'site:\n  title: S\n',
      'title:A\n',
      'title: A',
    ]) {
      assert.equal(readSimpleFrontMatter(text), undefined, JSON.stringify(text));
    }
  });

  it('gives the same page fields and errors either way', () => {
    const page = parseSource(
      '---\ntitle: Page 1.2\ndescription: The second page\norder: 2\ndraft: false\nweight: 5\n---\n\n# Body\n',
      'a.md',
    );
    assert.deepEqual(page, {
      meta: { title: 'Page 1.2', description: 'The second page', order: 2, draft: false },
      body: '\n# Body\n',
      bodyLine: 8,
    });
    assert.throws(
      () => parseSource('---\ntitle: A\ntitle: B\n---\n', 'a.md'),
      /a\.md:\d+: front matter is not valid YAML/,
    );
    assert.throws(
      () => parseSource('---\norder: first\n---\n', 'a.md'),
      /front matter field "order" must be a number, got string "first"/,
    );
    assert.throws(
      () => parseSource('---\ndraft: yes\n---\n', 'a.md'),
      /front matter field "draft" must be true or false, got string "yes"/,
    );
  });
});
