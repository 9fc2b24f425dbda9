// The edge's per-node memory: each site's alias pointers and each release's manifest, so a static
// request normally costs no database query. Releases are immutable, so manifests never go stale;
// alias pointers do, and every change is broadcast over pub/sub. `aliasesChanged` returns only after
// this node has heard its own broadcast back, so when promote answers, every subscribed node has been
// told too and serves the new release on its next request.
import type { StoredFile } from './blobs.js';
import { eq } from 'drizzle-orm';
import type { PubSub } from '../adapters/cache/index.js';
import { Echoes } from '../adapters/cache/echoes.js';
import type { Executor } from '../db/client.js';
import { WeightedLru } from '../lib/lru.js';
import { compileRules, type CompiledRules } from './rules.js';
import { ensureAliases, findAliases } from './service.js';
import { DEFAULT_SITE_OPTIONS, type SiteOptions } from './site-options.js';
import { releaseFiles, releases } from './tables.js';

const CHANNEL = 'deploy:aliases';
const DELETED_CHANNEL = 'deploy:releases-deleted';
/** A lost broadcast (a Redis reconnect) heals after this long at worst. */
const ALIAS_TTL_MS = 60_000;
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
}

export class EdgeCache {
  private readonly aliases = new Map<string, AliasEntry>();
  private readonly aliasLoads = new Map<string, Promise<AliasPointers>>();
  /** Bumped by every broadcast for a site, so a read that raced a change is not cached. */
  private readonly aliasGeneration = new Map<string, number>();
  private readonly manifests = new WeightedLru<string, Manifest>(MAX_CACHED_FILES, (manifest) => manifest.files.size);
  private readonly echoes: Echoes;
  private unsubscribe: (() => Promise<void>)[] = [];

  constructor(
    private readonly db: Executor,
    private readonly pubsub: PubSub,
  ) {
    this.echoes = new Echoes(pubsub.errors);
  }

  async start(): Promise<void> {
    this.unsubscribe.push(
      await this.pubsub.subscribe(CHANNEL, (message) => {
        const [site = '', nonce = ''] = message.split(' ', 2);
        const reloaded = this.forgetPointers(site) ? this.reloadPointers(site) : Promise.resolve();
        void reloaded.then(() => this.echoes.heard(nonce));
      }),
      await this.pubsub.subscribe(DELETED_CHANNEL, (message) => {
        for (const id of message.split(' ')) this.forgetRelease(id);
      }),
    );
  }

  async stop(): Promise<void> {
    for (const unsubscribe of this.unsubscribe) await unsubscribe();
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
      const row = (await findAliases(this.db, siteId)) ?? (await ensureAliases(this.db, siteId));
      const pointers = { live: row.liveReleaseId, stage: row.stageReleaseId, password: row.previewPassword };
      // A broadcast heard while the row was read makes this read possibly older than the change:
      // it answers the request that asked, but is not kept.
      if (generation === (this.aliasGeneration.get(siteId) ?? 0)) this.aliases.set(siteId, { pointers, loadedAt: Date.now() });
      return pointers;
    } finally {
      if (generation === (this.aliasGeneration.get(siteId) ?? 0)) this.aliasLoads.delete(siteId);
    }
  }

  /** Tells every node that a site's pointers changed; resolves once the broadcast came back here. */
  async aliasesChanged(siteId: string): Promise<void> {
    const served = this.forgetPointers(siteId);
    await this.echoes.publishAndWait((nonce) => this.pubsub.publish(CHANNEL, `${siteId} ${nonce}`));
    if (served) await this.reloadPointers(siteId);
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
