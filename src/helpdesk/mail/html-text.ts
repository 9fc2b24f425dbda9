// The text of an HTML mail body, for mail that has no text part. One pass of htmlparser2's tokenizer
// and no element tree: the work is linear in the input whatever its nesting or broken markup (a
// regex walk or a tree build is quadratic on both), and the input is cut at MAX_HTML_CHARS, so one
// message holds the event loop for a bounded time (docs/decisions/0115-helpdesk-mail-parsing.md).
// Tables keep a row per line with ` | ` between cells (also when each cell is a paragraph, as
// Outlook writes them), `<pre>` keeps its lines and spaces, paragraphs and headings are separated
// by a blank line, `<br>` breaks the line and a `<blockquote>` is kept with `> ` before each of its
// lines.
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

/** HTML beyond this many characters is not converted: far above any hand-written mail. */
export const MAX_HTML_CHARS = 1024 * 1024;

/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(['script', 'style', 'head', 'title', 'template', 'xml']);
/** Blocks set off by a blank line. */
const PARAGRAPHS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'ul', 'ol', 'dl', 'pre', 'blockquote']);
/** Blocks that start and end a line. */
const LINES = new Set([
  'div',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'nav',
  'aside',
  'address',
  'figure',
  'figcaption',
  'center',
  'form',
  'fieldset',
  'dt',
  'dd',
  'tr',
  'caption',
  'hr',
]);
const CELLS = new Set(['td', 'th']);
const CELL_SEPARATOR = ' | ';

class TextWriter {
  private readonly lines: string[] = [];
  private line = '';
  /** The `> ` marks of the blockquotes the current line started in. */
  private linePrefix = '';
  /** Line breaks asked for before the next text: 1 ends the line, 2 leaves a blank line. */
  private breaks = 0;
  private space = false;
  private separator = false;
  /** A cell has begun and holds no text yet: a paragraph opening there (Outlook's `<td><p>`) breaks no line. */
  private cellStart = false;
  hidden = 0;
  pre = 0;
  quote = 0;
  /** Per open table: whether the current row has a cell yet. */
  readonly rows: boolean[] = [];

  /** Text as the markup has it: whitespace collapsed outside `<pre>`. */
  text(value: string): void {
    if (this.hidden > 0 || value === '') return;
    if (this.pre > 0) {
      const parts = value.replace(/\r\n?/g, '\n').split('\n');
      parts.forEach((part, index) => {
        if (index > 0) this.newLine();
        this.put(part);
      });
      return;
    }
    const words = value.split(/[ \t\r\n\f\u00a0]+/);
    words.forEach((word, index) => {
      if (index > 0) this.space = true;
      if (word !== '') this.put(word);
    });
  }

  /** Ends the line now, empty or not (a `<br>`, a newline in `<pre>`). */
  newLine(): void {
    this.flushBreaks();
    this.lines.push(this.line === '' ? this.prefix() : this.linePrefix + this.line);
    this.line = '';
    this.space = false;
  }

  block(breaks: 1 | 2): void {
    if (this.cellStart) return;
    this.breaks = Math.max(this.breaks, breaks);
    this.space = false;
  }

  cell(): void {
    const table = this.rows.length - 1;
    if (table < 0) return;
    // Cells of a row stay on its line: the end of a paragraph in the cell before breaks nothing.
    if (this.rows[table]) {
      this.breaks = 0;
      this.separator = true;
    }
    this.rows[table] = true;
    this.cellStart = true;
  }

  row(): void {
    const table = this.rows.length - 1;
    this.cellStart = false;
    this.separator = false;
    // A row after a row starts the next line, however its last cell's paragraphs ended.
    if (table >= 0 && this.rows[table]) {
      this.breaks = 1;
      this.space = false;
    } else this.block(1);
    if (table >= 0) this.rows[table] = false;
  }

  /** A table ends: what follows is not at the start of a cell. */
  endTable(): void {
    this.cellStart = false;
  }

  result(): string {
    this.flushBreaks();
    if (this.line !== '') this.lines.push(this.linePrefix + this.line);
    return this.lines
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }

  private prefix(): string {
    return '> '.repeat(this.quote);
  }

  private flushBreaks(): void {
    if (this.breaks === 0) return;
    const started = this.lines.length > 0 || this.line !== '';
    if (started) {
      if (this.line !== '') this.lines.push(this.linePrefix + this.line);
      // A blank line inside a quote keeps its mark; one between a quote and what follows it has none.
      const blank = this.prefix().length <= this.linePrefix.length ? this.prefix() : this.linePrefix;
      if (this.breaks === 2) this.lines.push(blank.trimEnd());
    }
    this.line = '';
    this.breaks = 0;
    this.space = false;
    this.separator = false;
  }

  private put(word: string): void {
    this.cellStart = false;
    this.flushBreaks();
    if (this.separator && this.line !== '') this.line += CELL_SEPARATOR;
    else if (this.space && this.line !== '') this.line += ' ';
    this.separator = false;
    this.space = false;
    if (this.line === '') this.linePrefix = this.prefix();
    this.line += word;
  }
}

/** Readable text of an HTML body; input past MAX_HTML_CHARS is left out. */
export function htmlToText(html: string): string {
  const source = html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html;
  const writer = new TextWriter();
  let tag = '';
  const open = (name: string): void => {
    if (HIDDEN.has(name)) writer.hidden++;
    // A body ends an unclosed head, as browsers read it.
    else if (name === 'body') writer.hidden = 0;
    else if (name === 'br') writer.newLine();
    else if (name === 'pre') {
      writer.block(2);
      writer.pre++;
    } else if (name === 'blockquote') {
      writer.block(2);
      writer.quote++;
    } else if (name === 'table') {
      writer.block(2);
      writer.rows.push(false);
    } else if (name === 'tr') writer.row();
    else if (CELLS.has(name)) writer.cell();
    else if (name === 'li') {
      writer.block(1);
      writer.text('- ');
    } else if (PARAGRAPHS.has(name)) writer.block(2);
    else if (LINES.has(name)) writer.block(1);
  };
  const close = (name: string): void => {
    if (HIDDEN.has(name)) writer.hidden = Math.max(0, writer.hidden - 1);
    else if (name === 'pre') writer.pre = Math.max(0, writer.pre - 1);
    else if (name === 'blockquote') {
      writer.block(2);
      writer.quote = Math.max(0, writer.quote - 1);
    } else if (name === 'table') {
      writer.rows.pop();
      writer.endTable();
    }
    if (PARAGRAPHS.has(name)) writer.block(2);
    else if (LINES.has(name) || name === 'li') writer.block(1);
  };
  const callbacks: TokenizerCallbacks = {
    ontext: (start, end) => writer.text(source.slice(start, end)),
    ontextentity: (codepoint) => writer.text(String.fromCodePoint(codepoint)),
    onopentagname: (start, end) => {
      tag = source.slice(start, end).toLowerCase();
    },
    onopentagend: () => open(tag),
    onselfclosingtag: () => open(tag),
    onclosetag: (start, end) => {
      close(source.slice(start, end).toLowerCase());
    },
    onattribdata: () => undefined,
    onattribentity: () => undefined,
    onattribend: () => undefined,
    onattribname: () => undefined,
    oncdata: () => undefined,
    oncomment: () => undefined,
    ondeclaration: () => undefined,
    onend: () => undefined,
    onprocessinginstruction: () => undefined,
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  tokenizer.write(source);
  tokenizer.end();
  return writer.result();
}
