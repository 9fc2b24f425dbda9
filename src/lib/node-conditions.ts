// What makes a node `degraded` without taking it out of the load balancer's rotation: Redis not
// answering, a pub/sub connection that stopped delivering, invalidations a node knows it missed.
// Any module reports its condition here; `/up/databases` lists the ones in force, and the log says
// once when a condition begins and once when it ends, however often it is reported meanwhile.

interface ConditionLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
}

interface Condition {
  reason: string;
  since: number;
  /** When it ends by itself (ms since the epoch); Infinity until `recovered` is called. */
  until: number;
  reports: number;
}

interface ConditionCheck {
  status: 'fail';
  error: string;
}

export class NodeConditions {
  private logger: ConditionLogger | undefined;
  private readonly active = new Map<string, Condition>();

  constructor(private readonly now: () => number = Date.now) {}

  attach(logger: ConditionLogger): void {
    this.logger = logger;
  }

  /**
   * Marks the node degraded by `name` for `reason`: until `recovered(name)`, or, with `forMs`, until
   * that long has passed without another report (for events such as a missed invalidation).
   */
  degraded(name: string, reason: string, forMs = Infinity): void {
    const at = this.now();
    const current = this.live(name, at);
    if (current) {
      current.reason = reason;
      current.until = Math.max(current.until, at + forMs);
      current.reports += 1;
      return;
    }
    this.active.set(name, { reason, since: at, until: at + forMs, reports: 1 });
    this.logger?.warn({ condition: name }, `node degraded: ${name}: ${reason}`);
  }

  /** Ends the condition `name`, if it was in force; `summary` goes into the log line that says so. */
  recovered(name: string, summary?: string): void {
    const current = this.live(name, this.now());
    if (!current) return;
    this.active.delete(name);
    this.end(name, current, summary);
  }

  /** The conditions in force, as `/up/databases` lists its checks. */
  checks(): Record<string, ConditionCheck> {
    const at = this.now();
    const checks: Record<string, ConditionCheck> = {};
    for (const name of [...this.active.keys()]) {
      const condition = this.live(name, at);
      if (condition) checks[name] = { status: 'fail', error: condition.reason };
    }
    return checks;
  }

  private live(name: string, at: number): Condition | undefined {
    const condition = this.active.get(name);
    if (!condition || condition.until > at) return condition;
    this.active.delete(name);
    this.end(name, condition);
    return undefined;
  }

  private end(name: string, condition: Condition, summary?: string): void {
    const seconds = ((this.now() - condition.since) / 1000).toFixed(1);
    this.logger?.info(
      { condition: name, reports: condition.reports },
      `node no longer degraded: ${name}, after ${seconds} s${summary ? `; ${summary}` : ''}`,
    );
  }
}

/** Reports that a node may have missed messages: `PubSub.missed` of every cache adapter. */
export function missedMessages(conditions: NodeConditions): (reason: string) => void {
  // Long enough for an operator to see it; the copies concerned heal by themselves long before.
  return (reason) => conditions.degraded('invalidations', reason, 30_000);
}
