// Write tools that create something take an `idempotency_key`, as Stripe's API does: a retry with the
// same key and arguments answers the first call's result instead of creating a second release, post
// or entry. Answers are cached 24 hours (shared by every node over HTTP), keyed by the
// credentials that made them, so one caller never reads another's answer.
import { createHash } from 'node:crypto';
import type { Cache } from '../adapters/cache/index.js';
import { ToolFailure } from './api.js';
import type { ToolAnswer } from './tool.js';

const KEEP_SECONDS = 24 * 60 * 60;
/** How long a call holds its key while it runs; a crashed call frees it after this. */
const RUNNING_SECONDS = 15 * 60;

type Answer = ToolAnswer<Record<string, unknown>>;

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

export async function onceByKey(
  store: Cache,
  call: { caller: string; tool: string; key: string; arguments: Record<string, unknown> },
  run: () => Promise<Answer>,
): Promise<Answer> {
  const slot = `mcp:idem:${digest(`${call.caller}\n${call.tool}\n${call.key}`)}`;
  const argumentsHash = digest(JSON.stringify(call.arguments));
  const stored = await store.get(slot);
  if (stored !== undefined) {
    const { arguments: hash, answer } = JSON.parse(stored) as { arguments: string; answer: Answer };
    if (hash !== argumentsHash)
      throw new ToolFailure(
        `This idempotency_key was already used for a ${call.tool} call with other arguments; nothing was done. Use a new key for a new change.`,
      );
    return { ...answer, text: `Already done (same idempotency_key): ${answer.text}` };
  }
  if ((await store.increment(`${slot}:running`, RUNNING_SECONDS)).count > 1)
    throw new ToolFailure(
      `A ${call.tool} call with this idempotency_key is still running; call again in a moment for its result.`,
    );
  try {
    const answer = await run();
    await store.set(slot, JSON.stringify({ arguments: argumentsHash, answer }), KEEP_SECONDS);
    return answer;
  } finally {
    await store.delete(`${slot}:running`);
  }
}
