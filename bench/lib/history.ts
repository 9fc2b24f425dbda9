// Every bench run is kept as one line of bench/results/<bench>.jsonl, so bench/README.md can show only the latest
// result of each bench while the history stays whole and machine-readable (scripts/bench-history.ts prints it).
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { format } from 'node:util';
import { machineLine } from './blume.js';

export interface ResultTable {
  columns: string[];
  rows: string[][];
}

/** One run of a bench: when, on what, and what it printed (tables as tables, the rest as notes). */
export interface BenchRun {
  date: string;
  commit: string | null;
  machine: string;
  title?: string;
  figures: ResultTable[];
  notes: string;
}

export const RESULTS_FOLDER = new URL('../results/', import.meta.url);

/** Splits printed Markdown into its tables (`| a | b |` lines) and the prose around them. */
export function tablesOf(lines: string[]): { figures: ResultTable[]; notes: string } {
  const figures: ResultTable[] = [];
  const notes: string[] = [];
  let table: ResultTable | undefined;
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) {
      table = undefined;
      notes.push(line);
      continue;
    }
    const cells = trimmed
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replaceAll('\\|', '|'));
    if (!table) {
      table = { columns: cells, rows: [] };
      figures.push(table);
    } else if (!cells.every((cell) => /^:?-+:?$/.test(cell))) {
      table.rows.push(cells);
    }
  }
  return { figures, notes: notes.join('\n').trim() };
}

function currentCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Records this process's run of `bench` when it ends well: the machine line and every line it printed. What the
 * bench measures is untouched; only console.log is teed.
 */
export function recordRun(bench: string): void {
  const printed: string[] = [];
  const log = console.log.bind(console);
  console.log = (...args: unknown[]) => {
    printed.push(...format(...args).split('\n'));
    log(...args);
  };
  const machine = machineLine();
  process.once('exit', (code) => {
    if (code !== 0 || process.env.BENCH_RECORD === 'False') return;
    const run: BenchRun = { date: new Date().toISOString(), commit: currentCommit(), machine, ...tablesOf(printed) };
    mkdirSync(RESULTS_FOLDER, { recursive: true });
    appendFileSync(new URL(`${bench}.jsonl`, RESULTS_FOLDER), `${JSON.stringify(run)}\n`);
  });
}
