// Which nodes are on the pub/sub bus (docs/decisions/0069-lost-invalidations.md). Each node
// publishes a heartbeat with its id every HEARTBEAT_MS; every node heard within PEER_MEMORY_MS is one
// a change waits for confirmations from. The memory is long on purpose: a node whose connection to
// Redis broke for a while is exactly the one that may have missed a change, so it must not be
// forgotten before it is back (a node that was shut down is waited for, in vain, for that long).
import { randomAlnum } from '../../lib/ids.js';
import type { BusNodes, PubSub } from './types.js';

const CHANNEL = 'bus:heartbeat';
const HEARTBEAT_MS = 500;
/** A node not heard for this long is no longer counted among the peers. */
const PEER_MEMORY_MS = 60_000;

/** The single-process bus (memory cache) has no peers. */
export function alone(): BusNodes {
  return { nodeId: randomAlnum(8), peers: () => [] };
}

export class Heartbeats implements BusNodes {
  private readonly seen = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(
    private readonly pubsub: Omit<PubSub, 'nodes'>,
    readonly nodeId: string,
  ) {}

  async start(): Promise<void> {
    this.unsubscribe = await this.pubsub.subscribe(CHANNEL, (id) => {
      if (id !== this.nodeId) this.seen.set(id, Date.now());
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

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.unsubscribe?.();
  }

  private beat(): void {
    this.pubsub
      .publish(CHANNEL, this.nodeId)
      .catch((error: unknown) => this.pubsub.errors.report('pub/sub heartbeat', error));
  }
}
