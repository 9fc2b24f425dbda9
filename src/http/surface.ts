// The `surface` route constraint: which group of routes a request may reach, from its host.
// portal -> portal pages and APIs; a static site's hosts -> the static edge; a community site's
// host -> forum, content and help desk; `none` -> an unknown, suspended or canceled site (only health
// and the not-found handler, which answers 404 or 503 `site_suspended`).
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyServerOptions } from 'fastify';
import { classifyHost, hostName, type HostTarget } from './hosts.js';

type Surface = 'portal' | 'static' | 'community' | 'none';

type SiteTarget = Exclude<HostTarget, { kind: 'portal' }>;

/** Where routing finds a site's kind: the per-node site directory (core/sites/directory.ts). */
interface SiteKinds {
  peek(id: string): SiteFacts | undefined;
  get(id: string): Promise<SiteFacts | undefined>;
}

/** What routing reads of a site: its kind, and its status (a site that is not active has no surface). */
interface SiteFacts {
  kind: string;
  status: string;
}

interface SurfaceOptions {
  sitesDomain: string;
  trustProxy: boolean | string;
  directory: SiteKinds;
  /** Single-instance mode: this community site answers on every host. */
  singleSite?: string | undefined;
}

type TrustFn = (address: string, hop: number) => boolean;

/** What the host classification reads of a request: its headers and the peer's address. */
interface HostHeaders {
  readonly headers: IncomingHttpHeaders;
  readonly remoteAddress: string | undefined;
}

declare module 'node:http' {
  interface IncomingMessage {
    blumeTarget?: HostTarget;
  }
}

function compileTrust(trust: boolean | string): TrustFn {
  if (trust === true) return () => true;
  if (trust === false) return () => false;
  return proxyAddr.compile(trust.split(',').map((part) => part.trim()));
}

type RouterConstraint = NonNullable<NonNullable<FastifyServerOptions['routerOptions']>['constraints']>[string];

/** A request's surface, and its host's target, when both are known without waiting. */
export interface SurfaceOf {
  target: HostTarget;
  surface: Surface;
}

export interface SurfaceRouting {
  /** The router's `surface` constraint. */
  strategy: RouterConstraint;
  /** The surface from the site directory's memory alone; undefined when the site must be loaded. */
  peek(request: HostHeaders): SurfaceOf | undefined;
}

export function createSurfaceRouting(options: SurfaceOptions): SurfaceRouting {
  const trusted = compileTrust(options.trustProxy);

  const targetOf = ({ headers, remoteAddress }: HostHeaders): HostTarget => {
    if (options.singleSite) return { kind: 'site', site: options.singleSite };
    let host = headers.host ?? '';
    const forwarded = headers['x-forwarded-host'];
    if (forwarded && trusted(remoteAddress ?? '', 0)) host = String(forwarded).split(',')[0]!;
    return classifyHost(hostName(host), options.sitesDomain);
  };

  const surfaceOf = (target: HostTarget, site: SiteFacts | undefined): Surface =>
    !site || site.status !== 'active' ? 'none' : target.kind === 'site' ? (site.kind as Surface) : 'static';

  /** The host's target, and its surface unless the site has to be loaded first. */
  const classify = (request: HostHeaders): { target: HostTarget; surface?: Surface } => {
    const target = targetOf(request);
    if (target.kind === 'portal') return { target, surface: 'portal' };
    if (!target.site) return { target, surface: 'none' };
    const cached = options.directory.peek(target.site);
    return cached ? { target, surface: surfaceOf(target, cached) } : { target };
  };

  const strategy = {
    name: 'surface',
    storage() {
      // The router's handler type is internal to it; the map only stores and returns them.
      const handlers = new Map<string, never>();
      return {
        get(value: string) {
          return handlers.get(value) ?? null;
        },
        set(value: string, store: never) {
          handlers.set(value, store);
        },
      };
    },
    validate(value: unknown) {
      if (!['portal', 'static', 'community', 'none'].includes(value as string))
        throw new Error(`unknown surface ${String(value)}`);
    },
    mustMatchWhenDerived: false,
    deriveConstraint(req: IncomingMessage, _ctx: unknown, done: (error: Error | null, surface?: Surface) => void) {
      const { target, surface } = classify({ headers: req.headers, remoteAddress: req.socket.remoteAddress });
      req.blumeTarget = target;
      if (surface) return done(null, surface);
      options.directory.get((target as SiteTarget).site).then(
        (site) => done(null, surfaceOf(target, site)),
        (error: Error) => done(error),
      );
    },
  };

  return {
    // The router supports asynchronous strategies (a three-argument deriveConstraint); its types do not say so.
    strategy: strategy as unknown as RouterConstraint,
    peek(request) {
      const { target, surface } = classify(request);
      return surface ? { target, surface } : undefined;
    },
  };
}
