// Build log lines reach the database in small batches while the build runs, so the builds endpoints
// show progress, without one INSERT per line of a chatty build.
import type { Database } from '../../db/client.js';
import { appendBuildLogs, type LogLine } from './queue.js';

const FLUSH_INTERVAL_MS = 250;
const FLUSH_LINES = 200;

export class BuildLogWriter {
  private pending: LogLine[] = [];
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    readonly buildId: string,
  ) {
    this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  add(stream: LogLine['stream'], line: string, at: Date = new Date()): void {
    this.pending.push({ at, stream, line });
    if (this.pending.length >= FLUSH_LINES) this.flush();
  }

  /** Queues the pending lines for writing; writes stay in order. */
  private flush(): void {
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    this.writing = this.writing.then(() =>
      appendBuildLogs(this.db, this.buildId, lines).catch((error: unknown) => {
        // Kept and reported by close(): a lost log must not go unnoticed, nor stop the build.
        this.failure ??= error;
      }),
    );
  }

  /** Waits until every line so far is stored; throws when a write failed along the way. */
  async sync(): Promise<void> {
    this.flush();
    await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
  }
}
