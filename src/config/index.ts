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
  /** The plan a site gets when it is created without one (portal, console); the purchase API names its own. */
  defaultPlan: 'free' | 'pro' | 'business';
  /** What this installation is: a platform (portal + sites) or one community instance (decision 0025). */
  mode: 'platform' | 'single';
  /** Site id of the community instance in single-instance mode (`blume serve --single`). */
  instanceId: string;
  /** True, False, or a comma-separated list of addresses/CIDRs/names (loopback, uniquelocal). */
  trustProxy: boolean | string;
  logLevel: string;
  /** Whether static sites are answered ahead of the router (docs/decisions/0023, 0024, 0031). */
  edgeFastPath: boolean;
  /** Whether each node keeps answers (pages, lists) it read; directories are cached either way (decision 0111). */
  cacheAnswers: boolean;
  blobs: BlobsConfig;
  mail: MailConfig;
  rateLimit: {
    loginPerMinute: number;
    apiPerMinute: number;
    postsPerMinute: number;
    waitlistPerMinute: number;
    inboundPerMinute: number;
    inboundSitePerMinute: number;
  };
  builds: BuildsConfig;
  /** Whether Content API webhooks may target private, loopback and link-local addresses (decision 0047). */
  webhooksAllowPrivate: boolean;
  /** Whether a site's AI provider (AI_BASE_URL) may be a private, loopback or link-local address (decision 0116). */
  aiAllowPrivate: boolean;
  /** Whether a site's own SMTP server (MAIL_SERVER) may be a private, loopback or link-local address (decision 0117). */
  mailAllowPrivate: boolean;
  /** Seconds a forum sign-up form must have been open before it is sent; 0 turns the trap off (decision 0083). */
  signupMinSeconds: number;
  /** How long a workspace canceled through the purchase API keeps its data before the purge job deletes it. */
  cancelGraceMs: number;
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

  /** host:port from BLUME_BIND, else GUNICORN_BIND. */
  bind(): { host: string; port: number } {
    const name = this.env.BLUME_BIND ? 'BLUME_BIND' : 'GUNICORN_BIND';
    const text = this.text(name, '127.0.0.1:8080');
    const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
    const port = match ? Number(match[3]) : NaN;
    if (!match || port > 65535) {
      this.problems.push(`${name} must be host:port, got "${text}"`);
      return { host: '127.0.0.1', port: 8080 };
    }
    return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
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

/** Reads the secret key from env, else from the data dir, generating it there on first start. */
function resolveSecretKey(
  fromEnv: string | undefined,
  reader: Reader,
  dataDir: string,
  production: boolean,
  writable: boolean,
): string {
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

interface VariableDoc {
  name: string;
  /** The default as shown to operators. */
  default: string;
  doc: string;
}

interface Variable<T> extends VariableDoc {
  read(reader: Reader): T;
}

const declared: VariableDoc[] = [];

/** Declares a variable once: its name, shown default, doc and parser. Declaration order is the listing order. */
function declare<T>(name: string, shown: string, doc: string, read: (reader: Reader) => T): Variable<T> {
  const variable = { name, default: shown, doc, read };
  declared.push(variable);
  return variable;
}

const text = (name: string, fallback: string, doc: string) =>
  declare(name, fallback, doc, (r) => r.text(name, fallback));
const optional = (name: string, doc: string) => declare(name, '', doc, (r) => r.optional(name));
const bool = (name: string, fallback: boolean, doc: string) =>
  declare(name, fallback ? 'True' : 'False', doc, (r) => r.bool(name, fallback));
const int = (name: string, fallback: number, min: number, max: number, doc: string) =>
  declare(name, String(fallback), doc, (r) => r.int(name, fallback, min, max));
const url = (name: string, fallback: string, protocols: string[], doc: string) =>
  declare(name, fallback, doc, (r) => r.url(name, fallback, protocols));
const oneOf = <const T extends string>(name: string, values: readonly T[], fallback: T, doc: string) =>
  declare(name, fallback, doc, (r): T => {
    const value = r.text(name, fallback);
    if ((values as readonly string[]).includes(value)) return value as T;
    r.problems.push(
      `${name} must be ${values.length > 2 ? `one of ${values.join(', ')}` : values.join(' or ')}, got "${value}"`,
    );
    return fallback;
  });

const BIND = declare(
  'BLUME_BIND',
  '127.0.0.1:8080',
  'host:port the HTTP server binds to (GUNICORN_BIND is accepted too).',
  (r) => r.bind(),
);
const DATA_DIR = text(
  'BLUME_DATA_DIR',
  './data',
  'Folder for the embedded database, blobs, secret key and control socket.',
);
const PUBLIC_URL = url(
  'BLUME_PUBLIC_URL',
  'http://localhost:8080',
  ['http:', 'https:'],
  'Origin of the portal as users reach it.',
);
const SITES_DOMAIN = declare(
  'BLUME_SITES_DOMAIN',
  'host of BLUME_PUBLIC_URL',
  'Sites are served at <site>.<domain>.',
  (r) => r.optional('BLUME_SITES_DOMAIN'),
);
const DATABASE_URL = declare(
  'DATABASE_URL',
  '(embedded PGlite)',
  'PostgreSQL connection URL; unset uses PGlite in BLUME_DATA_DIR/db.',
  (r) => {
    const value = r.optional('DATABASE_URL');
    if (value !== undefined) r.url('DATABASE_URL', 'postgres://localhost/blume', ['postgres:', 'postgresql:']);
    return value;
  },
);
const REDIS_ENABLED = bool('BLUME_REDIS_ENABLED', false, 'True to use Redis for cache, pub/sub and rate limits.');
const REDIS_URL = url('BLUME_REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'], 'Redis connection URL.');
const SECRET_KEY = declare(
  'SECRET_KEY',
  '(generated into the data dir)',
  'Long random secret; required when NODE_ENV=production.',
  (r) => r.optional('SECRET_KEY'),
);
const AUTO_MIGRATE = bool(
  'BLUME_AUTO_MIGRATE',
  true,
  'Apply migrations at start; False requires `blume db upgrade` first.',
);
const MODE = oneOf(
  'BLUME_MODE',
  ['platform', 'single'],
  'platform',
  'platform (portal and sites) or single (one community instance for every command; the image sets it). `--single` is a synonym of single.',
);
const INSTANCE_ID = declare(
  'BLUME_INSTANCE_ID',
  'community',
  'Site id of the community instance in single mode.',
  (r) => {
    const value = r.text('BLUME_INSTANCE_ID', 'community');
    if (!/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/.test(value))
      r.problems.push(`BLUME_INSTANCE_ID must be a site id (lower-case letters, digits, hyphens), got "${value}"`);
    return value;
  },
);
const DEFAULT_PLAN = oneOf(
  'BLUME_DEFAULT_PLAN',
  ['free', 'pro', 'business'],
  'free',
  'Plan of a site created in the portal or console without one; business gives every feature (a team running Blume for itself). See docs/plans.md.',
);
const SIGNUP_OPEN = bool('BLUME_SIGNUP_OPEN', true, 'Allow portal sign-up through POST /api/auth/signup.');
const TRUST_PROXY = declare(
  'BLUME_TRUST_PROXY',
  'loopback',
  'Which peers may set X-Forwarded-*: True, False, or addresses/CIDRs (only this host by default; name a proxy on another host or network explicitly).',
  (r): boolean | string => {
    const value = r.text('BLUME_TRUST_PROXY', 'loopback');
    return parseBoolean(value) ?? value;
  },
);
const LOG_LEVEL = oneOf(
  'BLUME_LOG_LEVEL',
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  'info',
  'fatal, error, warn, info, debug, trace or silent. `info` and below log every request, in a buffered access log.',
);
const EDGE_FAST_PATH = bool(
  'BLUME_EDGE_FAST_PATH',
  true,
  "Answer static sites ahead of the router, off Node's request objects where it can; False routes them through Fastify.",
);
const CACHE_ANSWERS = oneOf(
  'BLUME_CACHE_ANSWERS',
  ['on', 'off'],
  'on',
  'on: each node keeps pages and lists it answered (every copy heals within 2 s of any change); off: it reads them from the database every time (sites, settings and types are kept either way).',
);
const MCP_FILES_DIR = optional(
  'BLUME_MCP_FILES_DIR',
  "The folder on this server from which {portal_url}/mcp uploads (deploy_upload, deploy_build_source paths): each site reads only its own subfolder, <folder>/<site>/; unset, that endpoint reads no files (`blume mcp` reads the agent's own disk).",
);
const BLOBS = oneOf('BLUME_BLOBS', ['local', 's3'], 'local', 'Blob store: local (BLUME_DATA_DIR/blobs) or s3.');
const S3_BUCKET = text('BLUME_S3_BUCKET', '', 'S3 bucket (required with BLUME_BLOBS=s3).');
const S3_REGION = text('BLUME_S3_REGION', 'us-east-1', 'S3 region.');
const S3_ENDPOINT = optional('BLUME_S3_ENDPOINT', 'S3-compatible endpoint URL (MinIO, R2, ...).');
const S3_ACCESS_KEY_ID = optional('BLUME_S3_ACCESS_KEY_ID', 'S3 access key id.');
const S3_SECRET_ACCESS_KEY = optional('BLUME_S3_SECRET_ACCESS_KEY', 'S3 secret access key.');
const S3_FORCE_PATH_STYLE = bool('BLUME_S3_FORCE_PATH_STYLE', true, 'Path-style bucket addressing.');
const S3_PREFIX = text('BLUME_S3_PREFIX', '', 'Key prefix inside the bucket.');
const MAIL_SERVER = optional('BLUME_MAIL_SERVER', 'SMTP host for outgoing mail; unset disables mail.');
const MAIL_PORT = int('BLUME_MAIL_PORT', 587, 1, 65535, 'SMTP port.');
const MAIL_USE_TLS = bool(
  'BLUME_MAIL_USE_TLS',
  false,
  'True for implicit TLS (port 465); STARTTLS is used when offered.',
);
const MAIL_USERNAME = optional('BLUME_MAIL_USERNAME', 'SMTP user name.');
const MAIL_PASSWORD = optional('BLUME_MAIL_PASSWORD', 'SMTP password.');
const MAIL_DEFAULT_SENDER = text(
  'BLUME_MAIL_DEFAULT_SENDER',
  'Blume <noreply@localhost>',
  'From address of outgoing mail.',
);
const RATE_LOGIN = int('BLUME_RATE_LOGIN_PER_MINUTE', 10, 1, 100_000, 'Login attempts per client address per minute.');
const RATE_API = int(
  'BLUME_RATE_API_PER_MINUTE',
  600,
  1,
  1_000_000,
  'API requests per credential or address per minute.',
);
const RATE_POSTS = int(
  'BLUME_RATE_POSTS_PER_MINUTE',
  20,
  1,
  1_000_000,
  'Forum topics, replies and edits per member per minute.',
);
const RATE_INBOUND = int(
  'BLUME_RATE_INBOUND_PER_MINUTE',
  60,
  1,
  100_000,
  "Help desk inbound mail requests per client address per minute, to one site (its mail provider's or MTA's).",
);
const RATE_INBOUND_SITE = int(
  'BLUME_RATE_INBOUND_SITE_PER_MINUTE',
  300,
  1,
  1_000_000,
  'Help desk inbound mail requests per minute to one site, from every address together.',
);
const RATE_WAITLIST = int(
  'BLUME_RATE_WAITLIST_PER_MINUTE',
  10,
  1,
  1_000_000,
  'Waitlist sign-ups per client address per minute.',
);
const BUILD_CONCURRENCY = int(
  'BLUME_BUILD_CONCURRENCY',
  1,
  0,
  64,
  'Docs builds this node runs at once; 0 leaves builds to other nodes.',
);
const BUILD_TIMEOUT = int(
  'BLUME_BUILD_TIMEOUT_SECONDS',
  300,
  5,
  24 * 3600,
  'Wall-clock limit of one build (git fetch, Markdown build and ingest).',
);
const BUILD_MEMORY = int(
  'BLUME_BUILD_MEMORY_MB',
  512,
  64,
  65_536,
  'Heap limit of the sandboxed build process, in MB (resident memory may add 256 MB).',
);
const BUILD_LEASE = int(
  'BLUME_BUILD_LEASE_SECONDS',
  30,
  2,
  3600,
  'A running build whose worker is silent this long is marked failed.',
);
const GIT_BASE_URL = url(
  'BLUME_GIT_BASE_URL',
  'https://github.com',
  ['http:', 'https:'],
  'Connected repositories are fetched from <base>/<owner>/<name>.git.',
);
const CANCEL_GRACE_DAYS = int(
  'BLUME_CANCEL_GRACE_DAYS',
  30,
  0,
  3650,
  'Days a workspace canceled through the purchase API keeps its data before it is purged.',
);
const SIGNUP_MIN_SECONDS = int(
  'BLUME_SIGNUP_MIN_SECONDS',
  3,
  0,
  3600,
  'Seconds a forum sign-up form must be open before it is sent (a trap for bots); 0 turns it off.',
);
const WEBHOOKS_ALLOW_PRIVATE = bool(
  'BLUME_WEBHOOKS_ALLOW_PRIVATE',
  false,
  'True lets Content API webhooks reach private, loopback and link-local addresses (receivers on your own network).',
);
const AI_ALLOW_PRIVATE = bool(
  'BLUME_AI_ALLOW_PRIVATE',
  false,
  "True lets a site's AI_BASE_URL reach private, loopback and link-local addresses (a model on your own network).",
);
const MAIL_ALLOW_PRIVATE = bool(
  'BLUME_MAIL_ALLOW_PRIVATE',
  false,
  "True lets a site's own MAIL_SERVER be a private, loopback or link-local address (a relay on your own network).",
);
const NODE_ENV = declare(
  'NODE_ENV',
  'development',
  'production marks cookies Secure and requires SECRET_KEY.',
  (r) => r.optional('NODE_ENV') === 'production',
);

/** Every variable, its default and what it does. Printed by `blume --help` and kept in README. */
export const variables: readonly VariableDoc[] = declared;

interface LoadOptions {
  /** Whether a missing secret key may be generated and written into the data dir. */
  writeSecret?: boolean;
}

export function loadConfig(env: Env = process.env, options: LoadOptions = {}): Config {
  const reader = new Reader(env);
  const production = NODE_ENV.read(reader);
  const dataDir = path.resolve(DATA_DIR.read(reader));
  const publicUrl = PUBLIC_URL.read(reader);
  const sitesDomain = (SITES_DOMAIN.read(reader) ?? publicUrl.hostname).toLowerCase();
  if (!/^[a-z0-9.-]+$/.test(sitesDomain))
    reader.problems.push(`BLUME_SITES_DOMAIN must be a host name, got "${sitesDomain}"`);
  const blobsDriver = BLOBS.read(reader);
  const bucket = S3_BUCKET.read(reader);
  if (blobsDriver === 's3' && bucket === '') reader.problems.push('BLUME_S3_BUCKET is required when BLUME_BLOBS=s3');

  const config: Config = {
    production,
    bind: BIND.read(reader),
    dataDir,
    publicUrl,
    sitesDomain,
    databaseUrl: DATABASE_URL.read(reader),
    redis: { enabled: REDIS_ENABLED.read(reader), url: REDIS_URL.read(reader).toString() },
    secretKey: resolveSecretKey(SECRET_KEY.read(reader), reader, dataDir, production, options.writeSecret ?? true),
    autoMigrate: AUTO_MIGRATE.read(reader),
    signupOpen: SIGNUP_OPEN.read(reader),
    defaultPlan: DEFAULT_PLAN.read(reader),
    mode: MODE.read(reader),
    instanceId: INSTANCE_ID.read(reader),
    trustProxy: TRUST_PROXY.read(reader),
    logLevel: LOG_LEVEL.read(reader),
    edgeFastPath: EDGE_FAST_PATH.read(reader),
    cacheAnswers: CACHE_ANSWERS.read(reader) === 'on',
    mcpFilesDir: MCP_FILES_DIR.read(reader),
    blobs: {
      driver: blobsDriver,
      dir: path.join(dataDir, 'blobs'),
      s3: {
        bucket,
        region: S3_REGION.read(reader),
        endpoint: S3_ENDPOINT.read(reader),
        accessKeyId: S3_ACCESS_KEY_ID.read(reader),
        secretAccessKey: S3_SECRET_ACCESS_KEY.read(reader),
        forcePathStyle: S3_FORCE_PATH_STYLE.read(reader),
        prefix: S3_PREFIX.read(reader),
      },
    },
    mail: {
      server: MAIL_SERVER.read(reader),
      port: MAIL_PORT.read(reader),
      useTls: MAIL_USE_TLS.read(reader),
      username: MAIL_USERNAME.read(reader),
      password: MAIL_PASSWORD.read(reader),
      defaultSender: MAIL_DEFAULT_SENDER.read(reader),
    },
    rateLimit: {
      loginPerMinute: RATE_LOGIN.read(reader),
      apiPerMinute: RATE_API.read(reader),
      postsPerMinute: RATE_POSTS.read(reader),
      waitlistPerMinute: RATE_WAITLIST.read(reader),
      inboundPerMinute: RATE_INBOUND.read(reader),
      inboundSitePerMinute: RATE_INBOUND_SITE.read(reader),
    },
    builds: {
      concurrency: BUILD_CONCURRENCY.read(reader),
      timeoutMs: BUILD_TIMEOUT.read(reader) * 1000,
      memoryMb: BUILD_MEMORY.read(reader),
      leaseMs: BUILD_LEASE.read(reader) * 1000,
      gitBaseUrl: GIT_BASE_URL.read(reader).toString().replace(/\/+$/, ''),
    },
    webhooksAllowPrivate: WEBHOOKS_ALLOW_PRIVATE.read(reader),
    aiAllowPrivate: AI_ALLOW_PRIVATE.read(reader),
    mailAllowPrivate: MAIL_ALLOW_PRIVATE.read(reader),
    signupMinSeconds: SIGNUP_MIN_SECONDS.read(reader),
    cancelGraceMs: CANCEL_GRACE_DAYS.read(reader) * 24 * 3600 * 1000,
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return Object.freeze(config);
}
