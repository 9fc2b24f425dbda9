// The search index of a docs site: every word of every page, chunked by heading so that a result
// links to its section, and split into files the browser fetches on demand.
// - Sections: a page's text before its first heading is one section (linking to the page), and each
//   heading starts another (linking to `#id`). Section details (title, page, link, the first words)
//   live in `s<n>.json` files of SECTIONS_PER_FILE sections each, in reading order.
// - Words: lower-cased, accents removed, split on anything but letters, digits and `_`; words of one
//   character are left out. `w<key>.json` maps each word starting with the same two characters
//   (shardKey) to its postings: section numbers, delta-encoded, times 4, plus where the word occurs
//   (3 page title, 2 heading, 1 text).
// A search for "econnr" fetches one word file and the section files of its best hits, never the
// whole index. The client script (theme/client-script.ts) repeats normalizeWords and shardKey.
import type { Token } from 'markdown-it';
import { inlineText } from './markdown.js';

export const SECTIONS_PER_FILE = 40;
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
  const words = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().match(WORD) ?? [];
  return words.filter((word) => word.length > 1);
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
      details.push([section.heading, page.title, section.anchor === '' ? page.url : `${page.url}#${encodeURIComponent(section.anchor)}`, page.section, snippet]);
      for (const word of normalizeWords(section.text)) add(word, id, 1);
      for (const word of normalizeWords(section.headingText)) add(word, id, 2);
      if (i === 0) for (const word of normalizeWords(page.title)) add(word, id, 3);
    });
  }
  const shards = new Map<string, Record<string, number[]>>();
  for (const word of [...postings.keys()].sort()) {
    const key = shardKey(word);
    let shard = shards.get(key);
    if (shard === undefined) {
      shard = {};
      shards.set(key, shard);
    }
    let previous = 0;
    shard[word] = [...postings.get(word)!.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([section, weight]) => {
        const encoded = (section - previous) * 4 + weight;
        previous = section;
        return encoded;
      });
  }
  const files = new Map<string, string>();
  for (const [key, shard] of shards) files.set(`w${key}.json`, JSON.stringify(shard));
  for (let start = 0; start < details.length; start += SECTIONS_PER_FILE) {
    files.set(`s${start / SECTIONS_PER_FILE}.json`, JSON.stringify(details.slice(start, start + SECTIONS_PER_FILE)));
  }
  return { files, sections: details.length };
}
