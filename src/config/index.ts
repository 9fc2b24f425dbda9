// One schema for every environment variable Blume reads. Each entry documents itself; `loadConfig`
// collects every problem before failing, so an operator fixes a bad environment in one pass.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Env = Record<string, string | undefined>;

export interface BlobsConfig {
  driver: 'local' | 's3';
  dir: string;
  s3: {
    bucket: string;
    region: string;
    endpoint: string | undefined;
    accessKeyId: string | undefined;
    secretAccessKey: string | undefined;
    forcePathStyle: boolean;
    prefix: string;
  };
}

export interface MailConfig {
  server: string | undefined;
  port: number;
  useTls: boolean;
  username: string | undefined;
  password: string | undefined;
  defaultSender: string;
}

export interface Config {
  production: boolean;
  bind: { host: string; port: number };
  dataDir: string;
  publicUrl: URL;
  /** The folder whose files `{portal_url}/mcp` may upload; none when unset. */
  mcpFilesDir: string | undefined;
  sitesDomain: string;
  databaseUrl: string | undefined;
  redis: { enabled: boolean; url: string };
  secretKey: string;
  autoMigrate: boolean;
  signupOpen: boolean;
  /** What this installation is: a platform (portal + sites) or one community instance (decision 0025). */
  mode: 'platform' | 'single';
  /** Site id of the community instance in single-instance mode (`blume serve --single`). */
  instanceId: string;
  /** True, False, or a comma-separated list of addresses/CIDRs/names (loopback, uniquelocal). */
  trustProxy: boolean | string;
  logLevel: string;
  /** Whether static sites are answered ahead of the router (docs/decisions/0023, 0024, 0031). */
  edgeFastPath: boolean;
  blobs: BlobsConfig;
  mail: MailConfig;
  rateLimit: { loginPerMinute: number; apiPerMinute: number; postsPerMinute: number; waitlistPerMinute: number };
  builds: BuildsConfig;
}

export interface BuildsConfig {
  /** Builds this node runs at once; 0 means it runs none (another node's workers take them). */
  concurrency: number;
  /** Wall-clock limit of one build, git fetch included. */
  timeoutMs: number;
  /** V8 heap limit of the sandboxed build process. */
  memoryMb: number;
  /** A running build whose worker has not renewed its lease for this long is taken as dead. */
  leaseMs: number;
  /** Repositories are fetched from `<gitBaseUrl>/<owner>/<name>.git`. */
  gitBaseUrl: string;
}

interface VariableDoc {
  name: string;
  default: string;
  doc: string;
}

/** Every variable, its default and what it does. Printed by `blume --help` and kept in README. */
export const variables: readonly VariableDoc[] = [
  { name: 'BLUME_BIND', default: '127.0.0.1:8080', doc: 'host:port the HTTP server binds to (GUNICORN_BIND is accepted too).' },
  { name: 'BLUME_DATA_DIR', default: './data', doc: 'Folder for the embedded database, blobs, secret key and control socket.' },
  { name: 'BLUME_PUBLIC_URL', default: 'http://localhost:8080', doc: 'Origin of the portal as users reach it.' },
  { name: 'BLUME_SITES_DOMAIN', default: 'host of BLUME_PUBLIC_URL', doc: 'Sites are served at <site>.<domain>.' },
  { name: 'DATABASE_URL', default: '(embedded PGlite)', doc: 'PostgreSQL connection URL; unset uses PGlite in BLUME_DATA_DIR/db.' },
  { name: 'BLUME_REDIS_ENABLED', default: 'False', doc: 'True to use Redis for cache, pub/sub and rate limits.' },
  { name: 'BLUME_REDIS_URL', default: 'redis://127.0.0.1:6379', doc: 'Redis connection URL.' },
  { name: 'SECRET_KEY', default: '(generated into the data dir)', doc: 'Long random secret; required when NODE_ENV=production.' },
  { name: 'BLUME_AUTO_MIGRATE', default: 'True', doc: 'Apply migrations at start; False requires `blume db upgrade` first.' },
  { name: 'BLUME_MODE', default: 'platform', doc: 'platform (portal and sites) or single (one community instance for every command; the image sets it). `--single` is a synonym of single.' },
  { name: 'BLUME_INSTANCE_ID', default: 'community', doc: 'Site id of the community instance in single mode.' },
  { name: 'BLUME_SIGNUP_OPEN', default: 'True', doc: 'Allow portal sign-up through POST /api/auth/signup.' },
  { name: 'BLUME_TRUST_PROXY', default: 'loopback', doc: 'Which peers may set X-Forwarded-*: True, False, or addresses/CIDRs (only this host by default; name a proxy on another host or network explicitly).' },
  { name: 'BLUME_LOG_LEVEL', default: 'info', doc: 'fatal, error, warn, info, debug, trace or silent. `info` and below log every request (static requests in a buffered access log).' },
  { name: 'BLUME_EDGE_FAST_PATH', default: 'True', doc: 'Answer static sites ahead of the router, off Node\'s request objects where it can; False routes them through Fastify.' },
  { name: 'BLUME_MCP_FILES_DIR', default: '', doc: 'The only folder on this server whose sites {portal_url}/mcp may upload (deploy_upload, deploy_build_source paths); unset, that endpoint reads no files (`blume mcp` reads the agent\'s own disk).' },
  { name: 'BLUME_BLOBS', default: 'local', doc: 'Blob store: local (BLUME_DATA_DIR/blobs) or s3.' },
  { name: 'BLUME_S3_BUCKET', default: '', doc: 'S3 bucket (required with BLUME_BLOBS=s3).' },
  { name: 'BLUME_S3_REGION', default: 'us-east-1', doc: 'S3 region.' },
  { name: 'BLUME_S3_ENDPOINT', default: '', doc: 'S3-compatible endpoint URL (MinIO, R2, ...).' },
  { name: 'BLUME_S3_ACCESS_KEY_ID', default: '', doc: 'S3 access key id.' },
  { name: 'BLUME_S3_SECRET_ACCESS_KEY', default: '', doc: 'S3 secret access key.' },
  { name: 'BLUME_S3_FORCE_PATH_STYLE', default: 'True', doc: 'Path-style bucket addressing.' },
  { name: 'BLUME_S3_PREFIX', default: '', doc: 'Key prefix inside the bucket.' },
  { name: 'BLUME_MAIL_SERVER', default: '', doc: 'SMTP host for outgoing mail; unset disables mail.' },
  { name: 'BLUME_MAIL_PORT', default: '587', doc: 'SMTP port.' },
  { name: 'BLUME_MAIL_USE_TLS', default: 'False', doc: 'True for implicit TLS (port 465); STARTTLS is used when offered.' },
  { name: 'BLUME_MAIL_USERNAME', default: '', doc: 'SMTP user name.' },
  { name: 'BLUME_MAIL_PASSWORD', default: '', doc: 'SMTP password.' },
  { name: 'BLUME_MAIL_DEFAULT_SENDER', default: 'Blume <noreply@localhost>', doc: 'From address of outgoing mail.' },
  { name: 'BLUME_RATE_LOGIN_PER_MINUTE', default: '10', doc: 'Login attempts per client address per minute.' },
  { name: 'BLUME_RATE_API_PER_MINUTE', default: '600', doc: 'API requests per credential or address per minute.' },
  { name: 'BLUME_RATE_POSTS_PER_MINUTE', default: '20', doc: 'Forum topics, replies and edits per member per minute.' },
  { name: 'BLUME_RATE_WAITLIST_PER_MINUTE', default: '10', doc: 'Waitlist sign-ups per client address per minute.' },
  { name: 'BLUME_BUILD_CONCURRENCY', default: '1', doc: 'Docs builds this node runs at once; 0 leaves builds to other nodes.' },
  { name: 'BLUME_BUILD_TIMEOUT_SECONDS', default: '300', doc: 'Wall-clock limit of one build (git fetch, Markdown build and ingest).' },
  { name: 'BLUME_BUILD_MEMORY_MB', default: '512', doc: 'Heap limit of the sandboxed build process, in MB (resident memory may add 256 MB).' },
  { name: 'BLUME_BUILD_LEASE_SECONDS', default: '30', doc: 'A running build whose worker is silent this long is marked failed.' },
  { name: 'BLUME_GIT_BASE_URL', default: 'https://github.com', doc: 'Connected repositories are fetched from <base>/<owner>/<name>.git.' },
  { name: 'NODE_ENV', default: 'development', doc: 'production marks cookies Secure and requires SECRET_KEY.' },
];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const TRUE = new Set(['true', 'True', 'TRUE', '1', 'yes']);
const FALSE = new Set(['false', 'False', 'FALSE', '0', 'no']);

/** Parses env-file style booleans; `undefined` when the text is not one. */
export function parseBoolean(text: string): boolean | undefined {
  if (TRUE.has(text)) return true;
  if (FALSE.has(text)) return false;
  return undefined;
}

function parseTrustProxy(text: string): boolean | string {
  return parseBoolean(text) ?? text;
}

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  text(name: string, fallback: string): string {
    const value = this.env[name];
    return value === undefined || value === '' ? fallback : value;
  }

  optional(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    const parsed = parseBoolean(value);
    if (parsed === undefined) {
      this.problems.push(`${name} must be True or False, got "${value}"`);
      return fallback;
    }
    return parsed;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.optional(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
      return fallback;
    }
    return parsed;
  }

  url(name: string, fallback: string, protocols: string[]): URL {
    const value = this.text(name, fallback);
    try {
      const url = new URL(value);
      if (!protocols.includes(url.protocol)) throw new Error('protocol');
      return url;
    } catch {
      this.problems.push(`${name} must be a ${protocols.join(' or ')} URL, got "${value}"`);
      return new URL(fallback);
    }
  }
}

function parseBind(reader: Reader, env: Env): { host: string; port: number } {
  const name = env.BLUME_BIND ? 'BLUME_BIND' : 'GUNICORN_BIND';
  const text = reader.text(name, '127.0.0.1:8080');
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    reader.problems.push(`${name} must be host:port, got "${text}"`);
    return { host: '127.0.0.1', port: 8080 };
  }
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}

/** Reads the secret key from env, else from the data dir, generating it there on first start. */
function resolveSecretKey(reader: Reader, dataDir: string, production: boolean, writable: boolean): string {
  const fromEnv = reader.optional('SECRET_KEY');
  if (fromEnv !== undefined) {
    if (fromEnv.length < 32) reader.problems.push('SECRET_KEY must be at least 32 characters long');
    return fromEnv;
  }
  if (production) {
    reader.problems.push('SECRET_KEY is required when NODE_ENV=production');
    return '';
  }
  const file = path.join(dataDir, 'secret_key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const generated = randomBytes(48).toString('base64url');
  if (writable) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${generated}\n`, { mode: 0o600 });
  }
  return generated;
}

export interface LoadOptions {
  /** Whether a missing secret key may be generated and written into the data dir. */
  writeSecret?: boolean;
}

export function loadConfig(env: Env = process.env, options: LoadOptions = {}): Config {
  const reader = new Reader(env);
  const production = env.NODE_ENV === 'production';
  const dataDir = path.resolve(reader.text('BLUME_DATA_DIR', './data'));
  const publicUrl = reader.url('BLUME_PUBLIC_URL', 'http://localhost:8080', ['http:', 'https:']);
  const sitesDomain = reader.text('BLUME_SITES_DOMAIN', publicUrl.hostname).toLowerCase();
  if (!/^[a-z0-9.-]+$/.test(sitesDomain)) reader.problems.push(`BLUME_SITES_DOMAIN must be a host name, got "${sitesDomain}"`);

  const databaseUrl = reader.optional('DATABASE_URL');
  if (databaseUrl !== undefined) reader.url('DATABASE_URL', 'postgres://localhost/blume', ['postgres:', 'postgresql:']);

  const instanceId = reader.text('BLUME_INSTANCE_ID', 'community');
  if (!/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/.test(instanceId)) reader.problems.push(`BLUME_INSTANCE_ID must be a site id (lower-case letters, digits, hyphens), got "${instanceId}"`);

  const mode = reader.text('BLUME_MODE', 'platform');
  if (mode !== 'platform' && mode !== 'single') reader.problems.push(`BLUME_MODE must be platform or single, got "${mode}"`);

  const blobsDriver = reader.text('BLUME_BLOBS', 'local');
  if (blobsDriver !== 'local' && blobsDriver !== 's3') reader.problems.push(`BLUME_BLOBS must be local or s3, got "${blobsDriver}"`);
  const bucket = reader.text('BLUME_S3_BUCKET', '');
  if (blobsDriver === 's3' && bucket === '') reader.problems.push('BLUME_S3_BUCKET is required when BLUME_BLOBS=s3');

  const logLevel = reader.text('BLUME_LOG_LEVEL', 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    reader.problems.push(`BLUME_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }

  const config: Config = {
    production,
    bind: parseBind(reader, env),
    dataDir,
    publicUrl,
    sitesDomain,
    databaseUrl,
    redis: {
      enabled: reader.bool('BLUME_REDIS_ENABLED', false),
      url: reader.url('BLUME_REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']).toString(),
    },
    secretKey: resolveSecretKey(reader, dataDir, production, options.writeSecret ?? true),
    autoMigrate: reader.bool('BLUME_AUTO_MIGRATE', true),
    signupOpen: reader.bool('BLUME_SIGNUP_OPEN', true),
    mode: mode === 'single' ? 'single' : 'platform',
    instanceId,
    trustProxy: parseTrustProxy(reader.text('BLUME_TRUST_PROXY', 'loopback')),
    logLevel,
    edgeFastPath: reader.bool('BLUME_EDGE_FAST_PATH', true),
    mcpFilesDir: reader.optional('BLUME_MCP_FILES_DIR'),
    blobs: {
      driver: blobsDriver === 's3' ? 's3' : 'local',
      dir: path.join(dataDir, 'blobs'),
      s3: {
        bucket,
        region: reader.text('BLUME_S3_REGION', 'us-east-1'),
        endpoint: reader.optional('BLUME_S3_ENDPOINT'),
        accessKeyId: reader.optional('BLUME_S3_ACCESS_KEY_ID'),
        secretAccessKey: reader.optional('BLUME_S3_SECRET_ACCESS_KEY'),
        forcePathStyle: reader.bool('BLUME_S3_FORCE_PATH_STYLE', true),
        prefix: reader.text('BLUME_S3_PREFIX', ''),
      },
    },
    mail: {
      server: reader.optional('BLUME_MAIL_SERVER'),
      port: reader.int('BLUME_MAIL_PORT', 587, 1, 65535),
      useTls: reader.bool('BLUME_MAIL_USE_TLS', false),
      username: reader.optional('BLUME_MAIL_USERNAME'),
      password: reader.optional('BLUME_MAIL_PASSWORD'),
      defaultSender: reader.text('BLUME_MAIL_DEFAULT_SENDER', 'Blume <noreply@localhost>'),
    },
    rateLimit: {
      loginPerMinute: reader.int('BLUME_RATE_LOGIN_PER_MINUTE', 10, 1, 100_000),
      apiPerMinute: reader.int('BLUME_RATE_API_PER_MINUTE', 600, 1, 1_000_000),
      postsPerMinute: reader.int('BLUME_RATE_POSTS_PER_MINUTE', 20, 1, 1_000_000),
      waitlistPerMinute: reader.int('BLUME_RATE_WAITLIST_PER_MINUTE', 10, 1, 1_000_000),
    },
    builds: {
      concurrency: reader.int('BLUME_BUILD_CONCURRENCY', 1, 0, 64),
      timeoutMs: reader.int('BLUME_BUILD_TIMEOUT_SECONDS', 300, 5, 24 * 3600) * 1000,
      memoryMb: reader.int('BLUME_BUILD_MEMORY_MB', 512, 64, 65_536),
      leaseMs: reader.int('BLUME_BUILD_LEASE_SECONDS', 30, 2, 3600) * 1000,
      gitBaseUrl: reader.url('BLUME_GIT_BASE_URL', 'https://github.com', ['http:', 'https:']).toString().replace(/\/+$/, ''),
    },
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return Object.freeze(config);
}
