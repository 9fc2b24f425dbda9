// Waiting for one's own pub/sub message to come back. Redis delivers a channel's messages in order
// to every subscriber, so once this node has heard its message, every subscribed node has been told
// too: a change call can answer knowing the next request anywhere sees the change. The wait is
// called after a write committed, so it never throws, and it is skipped when no echo can come (the
// message was not sent, or this node is not hearing the bus: decision 0113).
import type { ErrorReporter } from '../../lib/error-reporter.js';
import { randomAlnum } from '../../lib/ids.js';

/** A lost echo (a Redis reconnect) holds a caller up this long at most. */
const ECHO_TIMEOUT_MS = 2_000;

export class Echoes {
  private readonly waiting = new Map<string, () => void>();

  /** `errors` hears of echoes that did not come back in time. */
  constructor(private readonly errors: ErrorReporter) {}

  /**
   * Runs `publish` with a fresh nonce to put in its message; resolves once `received(nonce)` is called
   * or the timeout passes, at once when `publish` answers false (`PubSub.publish`: no echo will
   * come) or fails. Never rejects.
   */
  async publishAndWait(
    publish: (nonce: string) => Promise<boolean | void>,
    timeoutMs = ECHO_TIMEOUT_MS,
  ): Promise<void> {
    const nonce = randomAlnum(12);
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<void>((resolve) => {
      this.waiting.set(nonce, resolve);
      timer = setTimeout(() => {
        if (timeoutMs > 0)
          this.errors.report(
            'pub/sub echo',
            new Error(
              `a broadcast was not heard back within ${timeoutMs} ms; other nodes may answer from stale entries until it arrives`,
            ),
          );
        resolve();
      }, timeoutMs);
    });
    try {
      if ((await publish(nonce)) === false) return;
      await heard;
    } catch (error) {
      this.errors.report('pub/sub broadcast', error);
    } finally {
      clearTimeout(timer);
      this.waiting.delete(nonce);
    }
  }

  /** Called by the subscriber for every message's nonce; only this node's own ones wake a caller. */
  received(nonce: string): void {
    this.waiting.get(nonce)?.();
  }
}
