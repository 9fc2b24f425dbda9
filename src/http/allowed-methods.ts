// 405 for the API surfaces: a request whose path has routes, but none for its method, answers
// `405 method_not_allowed` with `Allow` listing the methods that path has (RFC 9110 section 15.5.6),
// instead of the 404 the router gives it. Every `/api/` route is recorded here as it is registered,
// per surface, in a router of its own that only answers which methods a path has. The routers are
// built on first use: a domain plugin's own onRoute hook sets a route's surface after this one ran.
// Catch-all routes (CORS preflight `OPTIONS /api/forum/v1*`) add their methods to a path that has
// routes of its own, but do not make every path under them exist.
import type { RouteOptions } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Routes without a surface constraint answer on every surface. */
const ANY_SURFACE = '*';

type Router = FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;

export class AllowedMethods {
  private readonly routes: RouteOptions[] = [];
  private routers: { exact: Map<string, Router>; catchAll: Map<string, Router> } | undefined;

  /** onRoute hook: keeps every `/api/` route. */
  readonly record = (route: RouteOptions): void => {
    if (route.url.startsWith('/api/')) this.routes.push(route);
  };

  private build(): { exact: Map<string, Router>; catchAll: Map<string, Router> } {
    const built = { exact: new Map<string, Router>(), catchAll: new Map<string, Router>() };
    for (const route of this.routes) {
      const surface = (route.constraints as { surface?: string } | undefined)?.surface ?? ANY_SURFACE;
      const routers = route.url.endsWith('*') ? built.catchAll : built.exact;
      let router = routers.get(surface);
      if (!router) {
        router = FindMyWay();
        routers.set(surface, router);
      }
      for (const method of [route.method].flat() as HTTPMethod[]) {
        if (!router.hasRoute(method, route.url)) router.on(method, route.url, () => undefined);
      }
    }
    return built;
  }

  /** The methods some route answers for this path on this surface, in a fixed order; empty if none. */
  allowed(surface: string | undefined, path: string): string[] {
    this.routers ??= this.build();
    const on = (routers: Map<string, Router>) =>
      [surface !== undefined ? routers.get(surface) : undefined, routers.get(ANY_SURFACE)].filter(
        (router) => router !== undefined,
      );
    const exact = on(this.routers.exact);
    if (!METHODS.some((method) => exact.some((router) => router.find(method, path) !== null))) return [];
    const all = [...exact, ...on(this.routers.catchAll)];
    return METHODS.filter((method) => all.some((router) => router.find(method, path) !== null));
  }
}
