// The piscina side of bench/libraries.ts: one batch of spool tasks per pool task, the same
// runSpoolTask the spool workers run, the slab handed back as the spool workers hand it back.
import { createRequire } from 'node:module';
import path from 'node:path';
import { runSpoolTask } from '../../src/deploy/spool-task.js';
import type { SpoolTask, SpoolTaskResult } from '../../src/deploy/spool-writer.js';
import { collectYoungGeneration } from '../../src/lib/young-gc.js';

interface PiscinaStatics {
  move(value: object): unknown;
  transferableSymbol: symbol;
  valueSymbol: symbol;
}
const Piscina = createRequire(path.join(process.env.BENCH_PISCINA_DIR!, 'package.json'))('piscina') as PiscinaStatics;

export default function spoolBatch({ tasks, slab }: { tasks: SpoolTask[]; slab: ArrayBuffer }): unknown {
  const results: SpoolTaskResult[] = tasks.map((task) => runSpoolTask(task, slab));
  collectYoungGeneration();
  return Piscina.move({ [Piscina.transferableSymbol]: slab, [Piscina.valueSymbol]: { results, slab } });
}
