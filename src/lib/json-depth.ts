// How deep JSON from a client may nest. JSON.stringify, structured clone, validators and presenters
// all recurse, so a value nested thousands deep overflows the stack (RangeError) wherever it goes
// next. Every parsed request body and every JSON value a form or provider hands in is measured here
// first, without recursion, and refused past the bound.

/** Levels of arrays and objects a value may nest; no document, setting or entry needs more. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests at most `max` levels of arrays and objects (a scalar is level 0). */
export function jsonDepthWithin(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    const depth = next.depth + 1;
    if (depth > max) return false;
    for (const child of Object.values(next.value as object)) pending.push({ value: child, depth });
  }
  return true;
}
