// Per-page work of a docs build (reading a source and its front matter, then the page's content,
// page-content.ts) done on the calling thread and on worker threads at once. Every thread takes
// the next page from a counter they share, so a thread slowed down by a busy machine simply takes
// fewer pages, and the results are the same whichever thread did a page. The workers run the
// sandboxed build's own entry script (build-entry.ts), so they load the same code, behind the same
// network cut-off, under the same permissions.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parentPort, Worker } from 'node:worker_threads';
import type MarkdownIt from 'markdown-it';
import { DocsBuildError, type BuildProblem } from './errors.js';
import { decodeUtf8, parseSource, type ParsedSource } from './front-matter.js';
import type { LinkTargets } from './links.js';
import { createMarkdown } from './markdown.js';
import { buildPageContent, type PageContent, type PageSource } from './page-content.js';
import type { SourceFile } from './source-tree.js';

/** Below this many pages a worker's start-up costs more than it saves. */
export const PARALLEL_MIN_PAGES = 32;
const MAX_WORKERS = 3;

/** What a worker is started with (workerData), so the entry script knows its role. */
const PAGE_WORKER_ROLE = 'blume-docs-pages';

interface Tasks {
  source: { item: SourceFile; context: undefined; result: ParsedSource };
  content: { item: PageSource; context: LinkTargets; result: PageContent };
}
type TaskKind = keyof Tasks;

interface Job {
  /** Numbers the jobs of a build: a late message of an earlier job is told apart. */
  id: number;
  kind: TaskKind;
  items: unknown[];
  context: unknown;
  /** Int32 counter of the next item to take. */
  next: SharedArrayBuffer;
}

type WorkerMessage = { job: number } & (
  { index: number; result: unknown } | { done: true } | { failed: { message: string; problems?: BuildProblem[] } }
);

/**
 * How many worker threads a build uses besides its own: one per further core that is free (by the
 * last minute's load average), at most MAX_WORKERS. On a machine whose cores are all busy a worker
 * gains nothing and costs its start-up (decision 0054).
 */
export function defaultWorkerCount(cores = availableParallelism(), load = loadavg()[0] ?? 0): number {
  const free = Math.floor(cores - load);
  return Math.max(0, Math.min(cores - 1, free, MAX_WORKERS));
}

function readPageSource(file: SourceFile): ParsedSource {
  return parseSource(decodeUtf8(readFileSync(file.abs), file.rel), file.rel);
}

/** One task on whichever thread runs it; `md` is that thread's Markdown instance. */
async function runTask(md: () => MarkdownIt, kind: TaskKind, item: unknown, context: unknown): Promise<unknown> {
  if (kind === 'source') return readPageSource(item as SourceFile);
  return buildPageContent(md(), item as PageSource, context as LinkTargets);
}

function lazyMarkdown(): () => MarkdownIt {
  let md: MarkdownIt | undefined;
  return () => (md ??= createMarkdown());
}

export class PageThreads {
  private readonly workers: Worker[];
  private readonly md = lazyMarkdown();
  private jobs = 0;
  /** Items the workers did, over every job so far. */
  workerItems = 0;

  /** Starts the workers now, so they load their code while the build scans its sources. */
  constructor(
    script: string | undefined,
    count: number,
    /** False leaves every item to the workers (tests of the workers' side). */
    private readonly takeItems = true,
  ) {
    this.workers =
      script === undefined
        ? []
        : Array.from({ length: count }, () => new Worker(script, { workerData: { role: PAGE_WORKER_ROLE } }));
    // A worker that fails between jobs must not crash the build with an unheard 'error' event; a
    // job it holds items of fails through the job's own listener, and this thread does the rest.
    for (const worker of this.workers) worker.on('error', () => {});
  }

  /** Reads every page's source and front matter. */
  sources(files: SourceFile[]): Promise<ParsedSource[]> {
    return this.run('source', files, undefined);
  }

  /** Builds every page's content, links checked against `targets`. */
  contents(pages: PageSource[], targets: LinkTargets): Promise<PageContent[]> {
    return this.run('content', pages, targets);
  }

  /** Runs a task per item; throws the first failure (a DocsBuildError when the content is at fault). */
  private async run<K extends TaskKind>(
    kind: K,
    items: Tasks[K]['item'][],
    context: Tasks[K]['context'],
  ): Promise<Tasks[K]['result'][]> {
    const id = (this.jobs += 1);
    const results = new Array<unknown>(items.length);
    const next = new SharedArrayBuffer(4);
    const counter = new Int32Array(next);
    let missing = items.length;
    let failure: unknown;
    const stop = (error: unknown): void => {
      failure ??= error;
      // Nobody takes another item.
      Atomics.store(counter, 0, items.length);
    };
    const detach: (() => void)[] = [];
    const finished = this.workers.map(
      (worker) =>
        new Promise<void>((resolve) => {
          const onExit = (code: number): void => {
            stop(new Error(`a page worker stopped unexpectedly (exit code ${code})`));
            done();
          };
          const onMessage = (message: WorkerMessage): void => {
            if (message.job !== id) return;
            if ('index' in message) {
              results[message.index] = message.result;
              missing -= 1;
              this.workerItems += 1;
              return;
            }
            if ('failed' in message)
              stop(
                message.failed.problems === undefined
                  ? new Error(message.failed.message)
                  : new DocsBuildError(message.failed.problems),
              );
            done();
          };
          const done = (): void => {
            worker.off('message', onMessage);
            worker.off('error', stop);
            worker.off('exit', onExit);
            resolve();
          };
          detach.push(done);
          worker.on('message', onMessage);
          worker.on('error', stop);
          worker.on('exit', onExit);
          worker.postMessage({ id, kind, items, context, next } satisfies Job);
        }),
    );
    try {
      for (
        let index = this.takeItems || this.workers.length === 0 ? Atomics.add(counter, 0, 1) : items.length;
        index < items.length;
        index = Atomics.add(counter, 0, 1)
      ) {
        results[index] = await runTask(this.md, kind, items[index], context);
        missing -= 1;
      }
    } catch (error) {
      stop(error);
    }
    // A worker that took no item may still be starting: when every result is here, nobody is waited for.
    if (missing > 0 || failure !== undefined) await Promise.all(finished);
    else for (const done of detach) done();
    if (failure !== undefined) throw failure;
    return results as Tasks[K]['result'][];
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

/** The worker's side: runs tasks from each job it is sent until the job's shared counter runs out. */
export function servePageWork(): void {
  const port = parentPort;
  if (port === null) throw new Error('servePageWork runs in a worker thread');
  const md = lazyMarkdown();
  // One job at a time, in the order they come, even while a page waits for a module to load.
  let queue = Promise.resolve();
  port.on('message', (job: Job) => {
    queue = queue.then(() => serveJob(job));
  });
  const serveJob = async (job: Job): Promise<void> => {
    const counter = new Int32Array(job.next);
    try {
      for (let index = Atomics.add(counter, 0, 1); index < job.items.length; index = Atomics.add(counter, 0, 1)) {
        port.postMessage({
          job: job.id,
          index,
          result: await runTask(md, job.kind, job.items[index], job.context),
        } satisfies WorkerMessage);
      }
      port.postMessage({ job: job.id, done: true } satisfies WorkerMessage);
    } catch (error) {
      const failed =
        error instanceof DocsBuildError
          ? { message: error.message, problems: error.problems }
          : { message: error instanceof Error ? error.message : String(error) };
      port.postMessage({ job: job.id, failed } satisfies WorkerMessage);
    }
  };
}
