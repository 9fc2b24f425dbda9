// Which nodes are on the pub/sub bus (docs/decisions/0069-lost-invalidations.md), and whether this
// node still hears it (0113). Each node publishes a heartbeat with its id every HEARTBEAT_MS; every
// node heard within PEER_MEMORY_MS is one a change waits for confirmations from. The memory is long
// on purpose: a node whose connection to Redis broke for a while is exactly the one that may have
// missed a change, so it must not be forgotten before it is back (a node that was shut down is
// waited for, in vain, for that long). A node whose own heartbeat has not come back for DEAF_AFTER_MS
// (Redis down or stopped, its subscription silently cut) may be missing every other message too: it
// says so as a node condition until its heartbeats come back.
import type { NodeConditions } from '../../lib/node-conditions.js';
import { randomAlnum } from '../../lib/ids.js';
import type { BusNodes, PubSub } from './types.js';

const CHANNEL = 'bus:heartbeat';
const HEARTBEAT_MS = 500;
/** A node not heard for this long is no longer counted among the peers. */
const PEER_MEMORY_MS = 60_000;
/** This node's own heartbeat not heard back for this long: it may be missing messages. */
const DEAF_AFTER_MS = 2_500;
/** The condition `/up/databases` lists meanwhile. */
const CONDITION = 'pubsub';

/** The single-process bus (memory cache) has no peers, and always hears itself. */
export function alone(): BusNodes {
  return { nodeId: randomAlnum(8), peers: () => [], hearing: () => true };
}

export class Heartbeats implements BusNodes {
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  /** When the oldest of this node's heartbeats not heard back yet was sent. */
  private unheardSince: number | undefined;
  private deaf = false;

  constructor(
    private readonly pubsub: Pick<PubSub, 'publish' | 'subscribe'>,
    private readonly conditions: NodeConditions,
    readonly nodeId: string,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(CHANNEL, (id) => {
      if (id !== this.nodeId) {
        this.seen.set(id, Date.now());
        return;
      }
      this.unheardSince = undefined;
      this.deaf = false;
      this.conditions.recovered(CONDITION);
    });
    this.timer = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    this.beat();
  }

  peers(): string[] {
    const now = Date.now();
    const peers: string[] = [];
    for (const [id, at] of this.seen) {
      if (now - at <= PEER_MEMORY_MS) peers.push(id);
      else this.seen.delete(id);
    }
    return peers.sort();
  }

  hearing(): boolean {
    return !this.deaf;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.unsubscribe?.();
  }

  private beat(): void {
    this.unheardSince ??= Date.now();
    // Never rejects: a failed publish is reported and counted by the adapter.
    void this.pubsub.publish(CHANNEL, this.nodeId);
    // Judged once the messages already received were read (as the breaker's timeout): after the
    // event loop was blocked, a heartbeat waiting in the socket is not a heartbeat lost.
    setImmediate(() => this.judge());
  }

  private judge(): void {
    if (this.unheardSince === undefined) return;
    const silentMs = Date.now() - this.unheardSince;
    if (silentMs <= DEAF_AFTER_MS) return;
    this.deaf = true;
    this.conditions.degraded(
      CONDITION,
      `this node has not heard its own pub/sub heartbeat for ${(silentMs / 1000).toFixed(1)} s: it may miss cache invalidations (its copies still heal by their own expiry)`,
    );
  }
}
