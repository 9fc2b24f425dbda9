// Errors of infrastructure that recovers on its own (a Redis reconnect, an idle database connection
// dropped, a client that broke its socket) are worth a line, not a flood: each source warns at most
// once per interval, and the next line says how many it held back. Until a logger is attached (the
// app's, once it is built) they are counted and told with the first line after.

interface WarnLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

interface SourceState {
  lastAt: number;
  held: number;
}

export class ErrorReporter {
  private logger: WarnLogger | undefined;
  private readonly sources = new Map<string, SourceState>();

  constructor(
    private readonly intervalMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  attach(logger: WarnLogger): void {
    this.logger = logger;
  }

  /** A warning for `source` (e.g. `redis client`), unless one went out less than an interval ago. */
  report(source: string, error: unknown): void {
    const state = this.sources.get(source);
    const at = this.now();
    if (!this.logger || (state && at - state.lastAt < this.intervalMs)) {
      if (state) state.held++;
      else this.sources.set(source, { lastAt: -Infinity, held: 1 });
      return;
    }
    const held = state?.held ?? 0;
    this.sources.set(source, { lastAt: at, held: 0 });
    this.logger.warn(
      { err: error, source, ...(held > 0 ? { held_back: held } : {}) },
      `${source}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
