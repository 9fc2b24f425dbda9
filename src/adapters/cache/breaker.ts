// A circuit breaker in front of Redis (decision 0113). A request waits COMMAND_TIMEOUT_MS at most for
// a command; the first one that fails for want of Redis (no answer in time, a closed or unwritable
// connection, not an error reply) opens the breaker, and from then on every command fails at once
// without touching Redis, so no request waits a Redis timeout after another one did. A probe (PING)
// every PROBE_MS closes it again as soon as Redis answers. Callers fall back: shared counters to
// this node's copy, messages are not sent.
import type { NodeConditions } from '../../lib/node-conditions.js';

export const COMMAND_TIMEOUT_MS = 250;
const PROBE_MS = 500;
/** The condition `/up/databases` lists while the breaker is open. */
const CONDITION = 'redis';

/** A command refused because the breaker is open: Redis did not answer lately. */
export class RedisUnavailable extends Error {
  constructor() {
    super('Redis did not answer lately; not asked until it does');
    this.name = 'RedisUnavailable';
  }
}

/** An error reply (WRONGTYPE, a script error) says Redis is there: it does not open the breaker. */
const isErrorReply = (error: unknown): boolean => error instanceof Error && error.name === 'ReplyError';

export class RedisBreaker {
  private openedAt: number | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private refused = 0;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly conditions: NodeConditions,
  ) {}

  /** Runs `command` unless the breaker is open (then rejects with `RedisUnavailable` at once). */
  async run<T>(command: () => Promise<T>): Promise<T> {
    if (this.openedAt !== undefined) {
      this.refused += 1;
      throw new RedisUnavailable();
    }
    let timer: NodeJS.Timeout | undefined;
    const answered = command().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const late = new Promise<undefined>((resolve) => {
      // The time is up only once the answers already received were read: after the event loop was
      // blocked (a long synchronous task), the timer fires before the socket is read, and an answer
      // waiting there must not count as a timeout. `setImmediate` runs after that read.
      timer = setTimeout(() => setImmediate(() => resolve(undefined)), COMMAND_TIMEOUT_MS);
    });
    try {
      const outcome = await Promise.race([answered, late]);
      if (!outcome) throw this.tripped(new Error(`no answer within ${COMMAND_TIMEOUT_MS} ms`));
      if ('error' in outcome) throw isErrorReply(outcome.error) ? outcome.error : this.tripped(outcome.error);
      return outcome.value;
    } finally {
      clearTimeout(timer);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.probeTimer);
  }

  /** Opens the breaker for `error`, and answers it. */
  private tripped(error: unknown): unknown {
    this.trip(error);
    return error;
  }

  private trip(error: unknown): void {
    if (this.openedAt !== undefined || this.stopped) return;
    this.openedAt = Date.now();
    this.refused = 0;
    const cause = error instanceof Error ? error.message : String(error);
    this.conditions.degraded(
      CONDITION,
      `Redis failed a command (${cause}); rate limits and login throttles count on this node and cache messages are not sent until it answers again`,
    );
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.stopped) return;
    this.probeTimer = setTimeout(() => void this.runProbe(), PROBE_MS);
    this.probeTimer.unref();
  }

  private async runProbe(): Promise<void> {
    try {
      await this.probe();
    } catch {
      this.scheduleProbe();
      return;
    }
    this.openedAt = undefined;
    this.conditions.recovered(CONDITION, `${this.refused} Redis commands answered without Redis meanwhile`);
  }
}
