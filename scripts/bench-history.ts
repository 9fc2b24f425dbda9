// Prints a bench's history from bench/results/<bench>.jsonl: one row per run (date, commit, machine, title),
// or with --run N the figures of one run as tables. Usage: tsx scripts/bench-history.ts <bench> [--run N]
import { readdirSync, readFileSync } from 'node:fs';
import { RESULTS_FOLDER, type BenchRun, type ResultTable } from '../bench/lib/history.js';

function readRuns(bench: string): BenchRun[] {
  return readFileSync(new URL(`${bench}.jsonl`, RESULTS_FOLDER), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as BenchRun);
}

function printTable(table: ResultTable): void {
  const widths = table.columns.map((column, i) =>
    Math.min(60, Math.max(column.length, ...table.rows.map((row) => (row[i] ?? '').length))),
  );
  const line = (cells: string[]) => `| ${widths.map((width, i) => (cells[i] ?? '').padEnd(width)).join(' | ')} |`;
  console.log(line(table.columns));
  console.log(`| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`);
  for (const row of table.rows) console.log(line(row));
}

const [bench, flag, value] = process.argv.slice(2);
if (!bench) {
  const benches = readdirSync(RESULTS_FOLDER).filter((name) => name.endsWith('.jsonl'));
  console.log(
    `usage: tsx scripts/bench-history.ts <bench> [--run N]; benches: ${benches.map((n) => n.slice(0, -6)).join(', ')}`,
  );
  process.exit(1);
}
const runs = readRuns(bench);
if (flag === '--run') {
  const run = runs[Number(value) - 1];
  if (!run) throw new Error(`${bench} has runs 1 to ${runs.length}`);
  console.log(
    `${run.date} | ${run.commit ?? 'commit not recorded'} | ${run.machine}${run.title ? `\n${run.title}` : ''}\n`,
  );
  for (const table of run.figures) {
    printTable(table);
    console.log('');
  }
  if (run.notes) console.log(run.notes);
} else {
  printTable({
    columns: ['run', 'date', 'commit', 'machine', 'tables', 'title'],
    rows: runs.map((run, i) => [
      String(i + 1),
      run.date,
      run.commit ?? '',
      run.machine,
      String(run.figures.length),
      run.title ?? '',
    ]),
  });
}
