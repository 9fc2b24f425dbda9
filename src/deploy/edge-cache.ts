// The edge's per-node memory: each site's alias pointers and each release's manifest, so a static
// request normally costs no database query. Releases are immutable, so manifests never go stale;
// alias pointers do, and every change is broadcast over pub/sub. Every node confirms a broadcast
// once it dropped (and reloaded) the site's pointers; `aliasesChanged` returns when every node on
// the bus confirmed. A broadcast can be lost (a dropped subscriber connection, Redis down), so each
// node also reads the pointer epoch every EPOCH_POLL_MS and drops the pointers read before it moved: when a
// node did not confirm, `aliasesChanged` waits out STALE_BOUND_MS, after which no node can still
// answer from the old pointers (docs/decisions/0069-lost-invalidations.md).
import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredFile } from './blobs.js';
import { eq } from 'drizzle-orm';
import type { PubSub } from '../adapters/cache/index.js';
import type { Executor } from '../db/client.js';
import { randomAlnum } from '../lib/ids.js';
import { WeightedLru } from '../lib/lru.js';
import { compileRules, type CompiledRules } from './rules.js';
import { ensureAliases, findAliases, readPointerEpoch } from './service.js';
import { DEFAULT_SITE_OPTIONS, type SiteOptions } from './site-options.js';
import { releaseFiles, releases } from './tables.js';

const CHANNEL = 'deploy:aliases';
const ACK_CHANNEL = 'deploy:aliases-confirmed';
const DELETED_CHANNEL = 'deploy:releases-deleted';
/** Pointers unused this long are read again (memory, not correctness: the epoch covers that). */
const ALIAS_TTL_MS = 60_000;
/** How often each node reads the pointer epoch. */
const EPOCH_POLL_MS = 1_000;
/**
 * After a commit, no node answers from the old pointers longer than this: its next epoch read
 * (at most EPOCH_POLL_MS away, plus the read itself) drops them. Documented in docs/scaling.md.
 */
const STALE_BOUND_MS = 2 * EPOCH_POLL_MS;
/** Manifests are evicted oldest-used first past this many file entries in total. */
const MAX_CACHED_FILES = 500_000;

/** A file of a release as the edge serves it: the same facts ingest stored. */
export type ManifestFile = StoredFile;

export interface Manifest {
  releaseId: string;
  siteId: string;
  files: Map<string, ManifestFile>;
  rules: CompiledRules;
  options: SiteOptions;
}

export interface AliasPointers {
  live: string | null;
  stage: string | null;
  password: string;
}

interface AliasEntry {
  pointers: AliasPointers;
  loadedAt: number;
  /** The pointer epoch read just before the pointers: they hold every change counted up to it. */
  epoch: number;
}

/** What a pointer change's broadcast reached: the nodes on the bus that confirmed it, and those that did not in time. */
interface Propagation {
  confirmed: string[];
  unconfirmed: string[];
}

export class EdgeCache {
  private readonly aliases = new Map<string, AliasEntry>();
  private readonly aliasLoads = new Map<string, Promise<AliasPointers>>();
  /** Bumped by every broadcast for a site, so a read that raced a change is not cached. */
  private readonly aliasGeneration = new Map<string, number>();
  private readonly manifests = new WeightedLru<string, Manifest>(MAX_CACHED_FILES, (manifest) => manifest.files.size);
  /** Confirmations received per broadcast nonce of this node, and who to wake when they are complete. */
  private readonly confirming = new Map<string, { confirmed: Set<string>; expected: string[]; done: () => void }>();
  private unsubscribe: (() => Promise<void>)[] = [];
  private epoch: number | undefined;
  private epochTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Executor,
    private readonly pubsub: PubSub,
  ) {}

  async start(): Promise<void> {
    const { nodeId } = this.pubsub.nodes;
    this.unsubscribe.push(
      await this.pubsub.subscribe(CHANNEL, (message) => {
        const [site = '', nonce = ''] = message.split(' ', 2);
        const reloaded = this.forgetPointers(site) ? this.reloadPointers(site) : Promise.resolve();
        void reloaded
          .then(() => this.pubsub.publish(ACK_CHANNEL, `${nonce} ${nodeId}`))
          .catch((error: unknown) => this.pubsub.errors.report('pointer confirmation', error));
      }),
      await this.pubsub.subscribe(ACK_CHANNEL, (message) => {
        const [nonce = '', node = ''] = message.split(' ', 2);
        const waiting = this.confirming.get(nonce);
        if (!waiting) return;
        waiting.confirmed.add(node);
        if (waiting.expected.every((id) => waiting.confirmed.has(id))) waiting.done();
      }),
      await this.pubsub.subscribe(DELETED_CHANNEL, (message) => {
        for (const id of message.split(' ')) this.forgetRelease(id);
      }),
    );
    this.epoch = await readPointerEpoch(this.db);
    this.epochTimer = setInterval(() => void this.checkEpoch(), EPOCH_POLL_MS);
    this.epochTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.epochTimer);
    for (const unsubscribe of this.unsubscribe) await unsubscribe();
  }

  /**
   * Drops every cached pointer when the epoch moved since the last read. A failed read drops them
   * too: this node cannot tell whether it missed a change, so its next requests read the database.
   */
  private async checkEpoch(): Promise<void> {
    let epoch: number | undefined;
    try {
      epoch = await readPointerEpoch(this.db);
    } catch (error) {
      this.pubsub.errors.report('pointer epoch read', error);
    }
    if (epoch !== undefined && epoch === this.epoch) return;
    this.epoch = epoch;
    // Pointers read at this epoch or later already hold every change it counts; loads in flight may not.
    for (const [site, entry] of this.aliases) if (epoch === undefined || entry.epoch < epoch) this.forgetPointers(site);
    for (const site of [...this.aliasLoads.keys()]) this.forgetPointers(site);
  }

  /** Tells every node to drop manifests of deleted releases (their preview hosts answer 404 then). */
  async releasesDeleted(ids: string[]): Promise<void> {
    for (const id of ids) this.forgetRelease(id);
    await this.pubsub.publish(DELETED_CHANNEL, ids.join(' '));
  }

  pointers(siteId: string): AliasPointers | Promise<AliasPointers> {
    const cached = this.aliases.get(siteId);
    if (cached && Date.now() - cached.loadedAt < ALIAS_TTL_MS) return cached.pointers;
    // Concurrent misses share one read.
    let pending = this.aliasLoads.get(siteId);
    if (!pending) {
      pending = this.loadPointers(siteId);
      this.aliasLoads.set(siteId, pending);
    }
    return pending;
  }

  private async loadPointers(siteId: string): Promise<AliasPointers> {
    const generation = this.aliasGeneration.get(siteId) ?? 0;
    try {
      // The epoch first: the row read after it holds at least the changes the epoch counts.
      const epoch = await readPointerEpoch(this.db);
      const row = (await findAliases(this.db, siteId)) ?? (await ensureAliases(this.db, siteId));
      const pointers = { live: row.liveReleaseId, stage: row.stageReleaseId, password: row.previewPassword };
      // A broadcast received while the row was read makes this read possibly older than the change:
      // it answers the request that asked, but is not cached.
      if (generation === (this.aliasGeneration.get(siteId) ?? 0))
        this.aliases.set(siteId, { pointers, loadedAt: Date.now(), epoch });
      return pointers;
    } finally {
      if (generation === (this.aliasGeneration.get(siteId) ?? 0)) this.aliasLoads.delete(siteId);
    }
  }

  /**
   * Call right after a committed change of a site's pointers. Tells every node and resolves once
   * every node on the bus confirmed, or, when one did not, once STALE_BOUND_MS has passed since the
   * call: either way no node answers from the old pointers afterwards. Answers who confirmed.
   */
  async aliasesChanged(siteId: string): Promise<Propagation> {
    const deadline = Date.now() + STALE_BOUND_MS;
    const served = this.forgetPointers(siteId);
    const expected = [this.pubsub.nodes.nodeId, ...this.pubsub.nodes.peers()];
    const nonce = randomAlnum(12);
    const confirmed = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const complete = new Promise<void>((resolve) => {
      this.confirming.set(nonce, { confirmed, expected, done: resolve });
      timer = setTimeout(resolve, STALE_BOUND_MS);
    });
    try {
      await this.pubsub.publish(CHANNEL, `${siteId} ${nonce}`);
    } catch (error) {
      // Nobody hears this change over the bus; the epoch reads carry it within the bound.
      this.pubsub.errors.report('pointer broadcast', error);
    }
    try {
      await complete;
      const unconfirmed = expected.filter((id) => !confirmed.has(id));
      // A node that did not confirm may have missed the message: wait until its epoch read surely ran.
      if (unconfirmed.length > 0) await sleep(Math.max(0, deadline - Date.now()));
      if (served) await this.reloadPointers(siteId);
      return { confirmed: expected.filter((id) => confirmed.has(id)), unconfirmed };
    } finally {
      clearTimeout(timer);
      this.confirming.delete(nonce);
    }
  }

  /** Drops a site's pointers; answers whether this node was serving the site. */
  private forgetPointers(siteId: string): boolean {
    const served = this.aliases.has(siteId) || this.aliasLoads.has(siteId);
    this.aliases.delete(siteId);
    this.aliasLoads.delete(siteId);
    this.aliasGeneration.set(siteId, (this.aliasGeneration.get(siteId) ?? 0) + 1);
    return served;
  }

  /**
   * Reads a served site's pointers (and the manifests they name) again right after a change rather
   * than at its next visitor, so the first request after a promote finds them in memory
   * (bench/promote.ts). Errors are left to
   * that visitor's own read.
   */
  private async reloadPointers(siteId: string): Promise<void> {
    try {
      const { live, stage } = await this.pointers(siteId);
      for (const releaseId of [live, stage]) if (releaseId) await this.manifest(releaseId);
    } catch {
      // The next request reads again and reports what fails.
    }
  }

  /** The release's manifest: at once when this node holds it, else once read. */
  manifest(releaseId: string): Manifest | undefined | Promise<Manifest | undefined> {
    return this.manifests.getOrLoad(releaseId, () => this.loadManifest(releaseId));
  }

  private async loadManifest(releaseId: string): Promise<Manifest | undefined> {
    const [release] = await this.db.select().from(releases).where(eq(releases.id, releaseId));
    if (!release) return undefined;
    const rows = await this.db
      .select({
        path: releaseFiles.path,
        hash: releaseFiles.hash,
        size: releaseFiles.size,
        contentType: releaseFiles.contentType,
        gzipSize: releaseFiles.gzipSize,
        brotliSize: releaseFiles.brotliSize,
      })
      .from(releaseFiles)
      .where(eq(releaseFiles.releaseId, releaseId));
    return {
      releaseId,
      siteId: release.siteId,
      files: new Map(rows.map((row) => [row.path, row])),
      rules: compileRules(release.rules),
      options: release.rules.options ?? DEFAULT_SITE_OPTIONS,
    };
  }

  private forgetRelease(releaseId: string): void {
    this.manifests.delete(releaseId);
  }
}
