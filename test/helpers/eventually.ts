// The one way a test waits for something another process, node or timer brings about: probe the
// real state until it holds, never sleep for a guessed time.
import { setTimeout as delay } from 'node:timers/promises';

/** Answers the first defined value `probe` gives; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(25);
  }
}
