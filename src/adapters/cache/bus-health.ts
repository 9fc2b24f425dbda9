// Whether this node's pub/sub subscription can be trusted to have heard every broadcast, and which
// other nodes are on the bus (docs/decisions/0069-lost-invalidations.md). Each node publishes a
// heartbeat with its id every HEARTBEAT_MS; hearing its own one back proves both connections work.
// From the moment the subscriber drops (or no own heartbeat came back for HEARTBEAT_TIMEOUT_MS)
// until the next own heartbeat arrives, the bus is "down": a message sent meanwhile may be lost, so
// per-node caches stop trusting entries loaded before `healthySince()`.
import { randomAlnum } from '../../lib/ids.js';
import type { PubSub } from './types.js';

const CHANNEL = 'bus:heartbeat';
export const HEARTBEAT_MS = 500;
/** No own heartbeat back for this long: the bus is taken as down. */
export const HEARTBEAT_TIMEOUT_MS = 2_000;
/** A node not heard for this long is no longer counted among the peers. */
const PEER_TIMEOUT_MS = 3_000;

export interface BusHealth {
  /** This node's id on the bus. */
  readonly nodeId: string;
  /** Since when every broadcast has surely been heard here; undefined while the bus is down. */
  healthySince(): number | undefined;
  /** Other nodes heard on the bus recently. */
  peers(): string[];
}

/** The single-process bus (memory cache) never loses a message and has no peers. */
export function alwaysHealthy(): BusHealth {
  const since = Date.now();
  return { nodeId: randomAlnum(8), healthySince: () => since, peers: () => [] };
}

export class HeartbeatHealth implements BusHealth {
  readonly nodeId = randomAlnum(8);
  private since: number | undefined;
  private lastOwn = 0;
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly pubsub: Omit<PubSub, 'health'>) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(CHANNEL, (id) => {
      const now = Date.now();
      if (id !== this.nodeId) {
        this.seen.set(id, now);
        return;
      }
      this.lastOwn = now;
      this.since ??= now;
    });
    this.timer = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    this.beat();
  }

  /** The subscriber connection dropped: messages may be lost until an own heartbeat comes back. */
  lost(): void {
    this.since = undefined;
  }

  healthySince(): number | undefined {
    if (this.since !== undefined && Date.now() - this.lastOwn > HEARTBEAT_TIMEOUT_MS) this.since = undefined;
    return this.since;
  }

  peers(): string[] {
    const now = Date.now();
    const peers: string[] = [];
    for (const [id, at] of this.seen) {
      if (now - at <= PEER_TIMEOUT_MS) peers.push(id);
      else this.seen.delete(id);
    }
    return peers.sort();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.unsubscribe?.();
  }

  private beat(): void {
    this.pubsub.publish(CHANNEL, this.nodeId).catch((error: unknown) => this.pubsub.errors.report('pub/sub heartbeat', error));
  }
}
