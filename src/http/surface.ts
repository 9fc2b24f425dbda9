// The `surface` route constraint: which group of routes a request may reach, from its host.
// portal -> portal pages and APIs; a static site's hosts -> the static edge; a community site's
// host -> forum, content and help desk; `none` -> an unknown, suspended or canceled site (only health
// and the not-found handler, which answers 404 or 503 `site_suspended`). A host outside the sites
// domain that is not the portal's own is looked up as a custom domain (decision 0142): a site's
// domain reaches that site as its production host would; any other stays the portal.
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

/** Where routing finds which site a custom domain serves: the per-node domain directory (deploy/domains.ts). */
interface DomainSites {
  peek(domain: string): string | null | undefined;
  get(domain: string): Promise<string | null>;
}

interface SurfaceOptions {
  sitesDomain: string;
  /** The portal's own host name, never a custom domain. */
  portalHost: string;
  domains: DomainSites;
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

  /** The host's target, and the host name when it may be a custom domain (a portal target by name only). */
  const targetOf = ({ headers, remoteAddress }: HostHeaders): { target: HostTarget; domain?: string } => {
    if (options.singleSite) return { target: { kind: 'site', site: options.singleSite } };
    let host = headers.host ?? '';
    const forwarded = headers['x-forwarded-host'];
    if (forwarded && trusted(remoteAddress ?? '', 0)) host = String(forwarded).split(',')[0]!;
    const name = hostName(host);
    const target = classifyHost(name, options.sitesDomain);
    return target.kind === 'portal' && name !== options.portalHost && name.includes('.') && !name.startsWith('[')
      ? { target, domain: name }
      : { target };
  };

  const domainTarget = (site: string | null): HostTarget => (site ? { kind: 'site', site } : { kind: 'portal' });

  const surfaceOf = (target: HostTarget, site: SiteFacts | undefined): Surface =>
    !site || site.status !== 'active' ? 'none' : target.kind === 'site' ? (site.kind as Surface) : 'static';

  /**
   * The host's target, and its surface unless the site has to be loaded first; `domain` when the
   * host may be a custom domain this node has not looked up yet.
   */
  const classify = (request: HostHeaders): { target: HostTarget; surface?: Surface; domain?: string } => {
    const named = targetOf(request);
    let target = named.target;
    if (named.domain !== undefined) {
      const site = options.domains.peek(named.domain);
      if (site === undefined) return { target, domain: named.domain };
      target = domainTarget(site);
    }
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
      const { target, surface, domain } = classify({ headers: req.headers, remoteAddress: req.socket.remoteAddress });
      req.blumeTarget = target;
      if (surface) return done(null, surface);
      const siteSurface = (siteTarget: SiteTarget): Promise<Surface> =>
        options.directory.get(siteTarget.site).then((site) => surfaceOf(siteTarget, site));
      const resolved =
        domain === undefined
          ? siteSurface(target as SiteTarget)
          : options.domains.get(domain).then((site): Surface | Promise<Surface> => {
              const found = domainTarget(site);
              req.blumeTarget = found;
              return found.kind === 'portal' ? 'portal' : siteSurface(found);
            });
      resolved.then(
        (resolvedSurface) => done(null, resolvedSurface),
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
