// Production changes need a human. A refusal answers a confirmation id bound to the exact action
// (tool, site, arguments) and to the state it described (the live release it would replace), valid
// for ten minutes; the confirming call carries `confirm: true` and that id. The id is an HMAC, so the
// stateless HTTP endpoint checks it without remembering anything, and it stops holding as soon as
// production changes (docs/decisions/0121-mcp-confirmation-ids.md). Where the client can ask its
// human itself (MCP elicitation), the tool asks directly instead.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ToolFailure } from './api.js';

const TTL_SECONDS = 600;

/** What one call may do beyond its arguments: ask the human through the client (MCP elicitation). */
export interface ToolCall {
  /** 'unavailable' when the client did not say it can ask (or the transport cannot carry the question). */
  ask(message: string): Promise<'accepted' | 'declined' | 'unavailable'>;
}

export interface ConfirmedAction {
  tool: string;
  site: string;
  /** The call's arguments; `confirm`, `confirmation_id` and `idempotency_key` are left out. */
  arguments: Record<string, unknown>;
  /** What the refusal described (the live release, the connected repository): an id given for another state does not hold. */
  state: unknown;
}

export const confirmArgs = {
  confirm: z
    .boolean()
    .optional()
    .describe('Must be true to change production; without it the tool only says what would happen.'),
  confirmation_id: z
    .string()
    .max(100)
    .optional()
    .describe('The id a refusal answered: it binds confirm to that exact action and expires after 10 minutes.'),
};

const LEFT_OUT = new Set(['confirm', 'confirmation_id', 'idempotency_key']);

/** JSON with sorted keys and no undefined members, so the same action always signs the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonical(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export class Confirmations {
  constructor(
    private readonly key: string | Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  private mac(action: ConfirmedAction, expires: number): string {
    const args = Object.fromEntries(Object.entries(action.arguments).filter(([name]) => !LEFT_OUT.has(name)));
    const signed = canonical({ ...action, arguments: args, expires });
    return createHmac('sha256', this.key).update(`blume-mcp-confirmation\n${signed}`).digest('base64url').slice(0, 32);
  }

  issue(action: ConfirmedAction): { id: string; expiresAt: Date } {
    const expires = Math.floor(this.now() / 1000) + TTL_SECONDS;
    return { id: `cf_${expires.toString(36)}_${this.mac(action, expires)}`, expiresAt: new Date(expires * 1000) };
  }

  check(action: ConfirmedAction, id: string): 'valid' | 'expired' | 'other' {
    const match = /^cf_([0-9a-z]+)_([A-Za-z0-9_-]{32})$/.exec(id);
    if (!match) return 'other';
    const expires = parseInt(match[1]!, 36);
    const given = Buffer.from(match[2]!);
    const wanted = Buffer.from(this.mac(action, expires));
    if (!timingSafeEqual(given, wanted)) return 'other';
    return expires * 1000 <= this.now() ? 'expired' : 'valid';
  }

  /**
   * Returns when the change may go ahead: a valid `confirmation_id` with `confirm: true`, or the
   * human's yes through the client. Otherwise throws the refusal, which says what would happen
   * (`what`) and carries a fresh confirmation id.
   */
  async require(
    call: ToolCall,
    action: ConfirmedAction,
    given: { confirm?: boolean; confirmation_id?: string },
    what: string,
  ): Promise<void> {
    let why = '';
    if (given.confirm === true && given.confirmation_id !== undefined) {
      const verdict = this.check(action, given.confirmation_id);
      if (verdict === 'valid') return;
      why =
        verdict === 'expired'
          ? 'The confirmation_id has expired. '
          : 'The confirmation_id was given for another action, or production has changed since. ';
    } else if (given.confirm === true) why = 'confirm: true needs the confirmation_id that a refusal answers. ';
    const asked = await call.ask(`${what} Go ahead?`);
    if (asked === 'accepted') return;
    if (asked === 'declined') throw new ToolFailure(`Your human declined: ${what} Nothing changed.`);
    const { id, expiresAt } = this.issue(action);
    throw new ToolFailure(
      `Confirmation needed: ${why}${what} Nothing changed. Ask your human, then call ${action.tool} again with the same arguments ` +
        `plus confirm: true and confirmation_id: "${id}" (valid until ${expiresAt.toISOString()}, for this action only).`,
      { confirmation_id: id, expires_at: expiresAt.toISOString(), action: { tool: action.tool, site: action.site } },
    );
  }
}
