// The search index of a docs site: every word of every page, chunked by heading so that a result
// links to its section, and split into files the browser fetches on demand.
// - Sections: a page's text before its first heading is one section (linking to the page), and each
//   heading starts another (linking to `#id`). Section details (title, page, link, the first words)
//   live in `s<n>.json` files, in reading order, of 40 sections each or more on a large site, so that
//   a site has at most about SECTION_FILES of them.
// - Words: lower-cased, accents removed, split on anything but letters, digits and `_`; words of one
//   character are left out. Words are grouped by their first two characters (shardKey) and the
//   groups, in the order of their keys, are packed into word files `w<n>.json` of about
//   WORD_FILE_BYTES each, so a small site has a few files and a large one many small ones. A word
//   file maps each word to its postings: section numbers, delta-encoded, times 4, plus where the word
//   occurs (3 page title, 2 heading, 1 text).
// - `index.json` (SearchIndex) lists the first key of each word file and the sections per file.
// A search for "econnr" fetches `index.json`, one word file and the section files of its best hits,
// never the whole index. The client script (theme/client-script.ts) repeats normalizeWords,
// shardKey and wordFile.
import type { Token } from 'markdown-it';
import { inlineText } from './markdown.js';

const MIN_SECTIONS_PER_FILE = 40;
const SECTION_FILES = 64;
/** Word files are filled with whole key groups up to about this many bytes of JSON. */
const WORD_FILE_BYTES = 32 * 1024;
export const SEARCH_INDEX_FILE = 'index.json';

/** What `index.json` holds. */
export interface SearchIndex {
  /** The first shard key of each word file, in order. */
  wordFiles: string[];
  sectionsPerFile: number;
}
const SNIPPET_LENGTH = 120;

export interface SearchSection {
  /** Heading text; '' for the part of a page before its first heading. */
  heading: string;
  anchor: string;
  text: string;
  /** Words of headings are worth more than words of text; the page title more still. */
  headingText: string;
}

interface SearchPage {
  title: string;
  url: string;
  /** Title of the section (folder) the page is in, shown under results. */
  section: string;
  sections: SearchSection[];
}

const WORD = /[\p{L}\p{N}_]+/gu;

function normalizeWords(text: string): string[] {
  const words =
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .match(WORD) ?? [];
  return words.filter((word) => word.length > 1);
}

/** The word file holding the words of `key`: the last whose first key is not after it. */
export function wordFile(firstKeys: readonly string[], key: string): string {
  let file = 0;
  while (file + 1 < firstKeys.length && firstKeys[file + 1]! <= key) file += 1;
  return `w${file}.json`;
}

/** Two leading characters, file-name safe: letters and digits as they are, others as `_hex`. */
export function shardKey(word: string): string {
  return Array.from(word)
    .slice(0, 2)
    .map((ch) => (/[a-z0-9]/.test(ch) ? ch : `_${ch.codePointAt(0)!.toString(16)}`))
    .join('');
}

function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/&[#\w]+;/g, ' ');
}

/** Splits a page's tokens into sections at every heading (the id is set by the heading rule). */
export function pageSections(tokens: Token[]): SearchSection[] {
  const sections: SearchSection[] = [{ heading: '', anchor: '', text: '', headingText: '' }];
  const prose: string[][] = [[]];
  const code: string[][] = [[]];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.type === 'heading_open' && token.tag === 'h1') {
      i += 2;
      continue;
    }
    if (token.type === 'heading_open') {
      const heading = inlineText(tokens[i + 1]).trim();
      sections.push({ heading, anchor: token.attrGet('id') ?? '', text: '', headingText: heading });
      prose.push([]);
      code.push([]);
      i += 2;
      continue;
    }
    if (token.type === 'inline') prose.at(-1)!.push(inlineText(token).trim());
    else if (token.type === 'fence' || token.type === 'code_block') code.at(-1)!.push(token.content);
    else if (token.type === 'html_block') prose.at(-1)!.push(stripTags(token.content).replace(/\s+/g, ' ').trim());
  }
  sections.forEach((section, i) => {
    section.text = [...prose[i]!, ...code[i]!].filter(Boolean).join(' ');
  });
  return sections.filter((section, i) => i === 0 || section.heading !== '' || section.text !== '');
}

interface SearchFiles {
  /** File name (inside the index folder) -> content. */
  files: Map<string, string>;
  sections: number;
}

export function buildSearchFiles(pages: SearchPage[]): SearchFiles {
  const postings = new Map<string, Map<number, number>>();
  const details: unknown[] = [];
  const add = (word: string, section: number, weight: number): void => {
    let list = postings.get(word);
    if (list === undefined) {
      list = new Map();
      postings.set(word, list);
    }
    if ((list.get(section) ?? 0) < weight) list.set(section, weight);
  };
  for (const page of pages) {
    page.sections.forEach((section, i) => {
      const id = details.length;
      const snippet = section.text.replace(/\s+/g, ' ').slice(0, SNIPPET_LENGTH);
      details.push([
        section.heading,
        page.title,
        section.anchor === '' ? page.url : `${page.url}#${encodeURIComponent(section.anchor)}`,
        page.section,
        snippet,
      ]);
      for (const word of normalizeWords(section.text)) add(word, id, 1);
      for (const word of normalizeWords(section.headingText)) add(word, id, 2);
      if (i === 0) for (const word of normalizeWords(page.title)) add(word, id, 3);
    });
  }
  const shards = new Map<string, string[]>();
  for (const word of postings.keys()) {
    const key = shardKey(word);
    const shard = shards.get(key);
    if (shard === undefined) shards.set(key, [word]);
    else shard.push(word);
  }
  const files = new Map<string, string>();
  const firstKeys: string[] = [];
  let entries: string[] = [];
  let bytes = 0;
  const closeFile = (): void => {
    files.set(`w${firstKeys.length - 1}.json`, `{${entries.join(',')}}`);
    entries = [];
    bytes = 0;
  };
  for (const key of [...shards.keys()].sort()) {
    if (firstKeys.length === 0 || bytes >= WORD_FILE_BYTES) {
      if (firstKeys.length > 0) closeFile();
      firstKeys.push(key);
    }
    for (const word of shards.get(key)!.sort()) {
      let previous = 0;
      const encoded = [...postings.get(word)!.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([section, weight]) => {
          const delta = (section - previous) * 4 + weight;
          previous = section;
          return delta;
        });
      const entry = `${JSON.stringify(word)}:[${encoded.join(',')}]`;
      entries.push(entry);
      bytes += entry.length + 1;
    }
  }
  if (firstKeys.length > 0) closeFile();
  const sectionsPerFile = Math.max(MIN_SECTIONS_PER_FILE, Math.ceil(details.length / SECTION_FILES));
  for (let start = 0; start < details.length; start += sectionsPerFile) {
    files.set(`s${start / sectionsPerFile}.json`, JSON.stringify(details.slice(start, start + sectionsPerFile)));
  }
  files.set(SEARCH_INDEX_FILE, JSON.stringify({ wordFiles: firstKeys, sectionsPerFile } satisfies SearchIndex));
  return { files, sections: details.length };
}
