// A dependency that cannot be reached (the database, the blob store) is an outage, not a bug: the
// request is answered 503 with Retry-After and a stable code, so clients and load balancers retry
// (docs/decisions/0070-dependency-failures.md). Adapters that know an error is an outage say so with
// DependencyUnavailable; the database driver's connection errors are recognised by their codes.

type Dependency = 'database' | 'blob_store';

export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: Dependency,
    cause: unknown,
  ) {
    super(`the ${dependency === 'database' ? 'database' : 'blob store'} cannot be reached`, { cause });
    this.name = 'DependencyUnavailable';
  }
}

/** Socket errors of a connection that could not be made or broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** PostgreSQL SQLSTATEs of a lost or refused connection: class 08, and the server shutting down. */
const DATABASE_STATES = /^(08...|57P0[123])$/;
/** node-postgres' own words when a connection breaks or the pool cannot get one. */
const DATABASE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed',
];

/** Which dependency an error (or any of its causes) says is down, if any. */
export function unavailableDependency(error: unknown): Dependency | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current instanceof DependencyUnavailable) return current.dependency;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || DATABASE_STATES.test(code))) return 'database';
    if (DATABASE_MESSAGES.some((message) => current instanceof Error && current.message.startsWith(message)))
      return 'database';
  }
  return undefined;
}
