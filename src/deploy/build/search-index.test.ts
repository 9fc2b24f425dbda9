import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildSearchFiles, SEARCH_INDEX_FILE, shardKey, wordFile, type SearchIndex } from './search-index.js';

describe('buildSearchFiles', () => {
  // Words of many first letters and scripts: digits, `_`, Latin, Cyrillic, Greek, CJK.
  const vocabulary = Array.from({ length: 6000 }, (_, i) => `${'0a_zдωz中b9'[i % 11]}${'xa1д'[i % 4]}word${i}`);
  const pages = Array.from({ length: 60 }, (_, p) => ({
    title: `Page ${p}`,
    url: `/p${p}/`,
    section: '',
    sections: [{ heading: '', anchor: '', text: vocabulary.filter((_, i) => i % 60 === p).join(' '), headingText: '' }],
  }));
  const { files } = buildSearchFiles(pages);
  const firstKeys = (JSON.parse(files.get(SEARCH_INDEX_FILE)!) as SearchIndex).wordFiles;

  it('packs key groups into a few files, in key order', () => {
    assert.ok(firstKeys.length > 1 && firstKeys.length < 20, `${firstKeys.length} word files`);
    assert.deepEqual([...firstKeys].sort(), firstKeys);
    assert.equal([...files.keys()].filter((name) => /^w\d+\.json$/.test(name)).length, firstKeys.length);
  });

  it('finds every word in the file wordFile names for its key', () => {
    const parsed = new Map([...files].map(([name, text]) => [name, JSON.parse(text) as Record<string, number[]>]));
    for (const word of vocabulary) {
      const name = wordFile(firstKeys, shardKey(word));
      assert.ok(parsed.get(name)![word] !== undefined, `${word} (key ${shardKey(word)}) is in ${name}`);
    }
  });

  it('keeps a word named like an object property as data', () => {
    const { files: own } = buildSearchFiles([
      {
        title: 'Proto',
        url: '/',
        section: '',
        sections: [{ heading: '', anchor: '', text: '__proto__ constructor', headingText: '' }],
      },
    ]);
    const keys = (JSON.parse(own.get(SEARCH_INDEX_FILE)!) as SearchIndex).wordFiles;
    const shard = JSON.parse(own.get(wordFile(keys, shardKey('__proto__')))!) as Record<string, number[]>;
    assert.ok(Object.hasOwn(shard, '__proto__'));
    assert.deepEqual(shard.constructor, [1]);
  });

  it('puts the sections of a large site in at most about 64 files, found by number', () => {
    const many = Array.from({ length: 1000 }, (_, p) => ({
      title: `Page ${p}`,
      url: `/p${p}/`,
      section: '',
      sections: Array.from({ length: 6 }, (_, h) => ({
        heading: h === 0 ? '' : `Part ${h}`,
        anchor: h === 0 ? '' : `part-${h}`,
        text: `words of page ${p}`,
        headingText: '',
      })),
    }));
    const { files: built } = buildSearchFiles(many);
    const { sectionsPerFile } = JSON.parse(built.get(SEARCH_INDEX_FILE)!) as SearchIndex;
    assert.equal(sectionsPerFile, Math.ceil(6000 / 64));
    assert.equal([...built.keys()].filter((name) => /^s\d+\.json$/.test(name)).length, 64);
    const section = 6 * 777 + 4;
    const details = JSON.parse(built.get(`s${Math.floor(section / sectionsPerFile)}.json`)!) as string[][];
    assert.deepEqual(details[section % sectionsPerFile]!.slice(0, 3), ['Part 4', 'Page 777', '/p777/#part-4']);
  });
});
