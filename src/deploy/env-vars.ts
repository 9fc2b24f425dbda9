// Environment variables of a site's docs builds (decision 0142), as Netlify has them: per deploy
// context, where a `production` or `preview` value overrides the one for `all`. Values are sealed with
// SECRET_KEY; a secret value never leaves the server except into the build's environment, and the
// build log masks it. Names that would change how the sandboxed Node runs are refused.
import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { openSecret, sealSecret } from '../lib/secrets.js';
import { siteEnvVars, type DeployContext, type SiteEnvVarRow } from './tables.js';

const SEAL_PURPOSE = 'site-env-var';
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Read by Node, the dynamic linker, libuv, OpenSSL or the sandbox itself: a build must not set them. */
const RESERVED_PREFIXES = ['NODE_', 'NPM_', 'LD_', 'UV_', 'OPENSSL_', 'SSL_', 'BLUME_', 'BWRAP'];
const RESERVED_NAMES = new Set(['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'PWD', 'SHELL', 'USER', 'TZ', 'LANG']);
const MAX_ENV_VALUE_BYTES = 16 * 1024;

export type EnvVarContext = SiteEnvVarRow['context'];

interface EnvVarInput {
  name: string;
  context: EnvVarContext;
  value: string;
  secret: boolean;
}

function envVarNameProblem(name: string): AppError | undefined {
  if (!NAME.test(name))
    return new AppError(
      'invalid_env_var_name',
      'A variable name is 1 to 128 letters, digits and underscores, not starting with a digit.',
    );
  const upper = name.toUpperCase();
  if (RESERVED_NAMES.has(upper) || RESERVED_PREFIXES.some((prefix) => upper.startsWith(prefix)))
    return new AppError(
      'env_var_reserved',
      `"${name}" is reserved: names starting ${RESERVED_PREFIXES.join(', ')} and ${[...RESERVED_NAMES].join(', ')} would change how the build runs.`,
    );
  return undefined;
}

export async function listEnvVars(db: Executor, siteId: string): Promise<SiteEnvVarRow[]> {
  return db
    .select()
    .from(siteEnvVars)
    .where(eq(siteEnvVars.siteId, siteId))
    .orderBy(asc(siteEnvVars.name), asc(siteEnvVars.context));
}

/** Sets one variable of one context (created or replaced); answers the row and whether it is new. */
export async function setEnvVar(
  db: Executor,
  secretKey: string,
  siteId: string,
  input: EnvVarInput,
): Promise<{ row: SiteEnvVarRow; created: boolean }> {
  const problem = envVarNameProblem(input.name);
  if (problem) throw problem;
  if (Buffer.byteLength(input.value) > MAX_ENV_VALUE_BYTES)
    throw new AppError('unprocessable', `A value is at most ${MAX_ENV_VALUE_BYTES} bytes.`);
  const key = and(
    eq(siteEnvVars.siteId, siteId),
    eq(siteEnvVars.name, input.name),
    eq(siteEnvVars.context, input.context),
  );
  const [existing] = await db.select({ name: siteEnvVars.name }).from(siteEnvVars).where(key);
  const values = {
    siteId,
    name: input.name,
    context: input.context,
    valueSealed: sealSecret(input.value, secretKey, SEAL_PURPOSE),
    secret: input.secret,
    updatedAt: new Date(),
  };
  const [row] = await db
    .insert(siteEnvVars)
    .values(values)
    .onConflictDoUpdate({ target: [siteEnvVars.siteId, siteEnvVars.name, siteEnvVars.context], set: values })
    .returning();
  return { row: row!, created: existing === undefined };
}

export async function deleteEnvVar(db: Executor, siteId: string, name: string, context: EnvVarContext): Promise<void> {
  const gone = await db
    .delete(siteEnvVars)
    .where(and(eq(siteEnvVars.siteId, siteId), eq(siteEnvVars.name, name), eq(siteEnvVars.context, context)))
    .returning({ name: siteEnvVars.name });
  if (gone.length === 0)
    throw new AppError('env_var_not_found', `Site "${siteId}" has no variable "${name}" for ${context}.`);
}

/** A value as pages and APIs may show it: never a secret's. */
export function readableValue(row: SiteEnvVarRow, secretKey: string): string | null {
  return row.secret ? null : openSecret(row.valueSealed, secretKey, SEAL_PURPOSE);
}

interface BuildEnvironment {
  variables: Record<string, string>;
  /** The secret values, for the build log to mask. */
  secrets: string[];
}

/** What a build of the context gets: each name's value for that context, else its value for `all`. */
export async function buildEnvironment(
  db: Executor,
  secretKey: string,
  siteId: string,
  context: DeployContext,
): Promise<BuildEnvironment> {
  const rows = (await listEnvVars(db, siteId)).filter((row) => row.context === 'all' || row.context === context);
  const chosen = new Map<string, SiteEnvVarRow>();
  for (const row of rows) if (row.context !== 'all' || !chosen.has(row.name)) chosen.set(row.name, row);
  const variables: Record<string, string> = {};
  const secrets: string[] = [];
  for (const row of chosen.values()) {
    const value = openSecret(row.valueSealed, secretKey, SEAL_PURPOSE);
    variables[row.name] = value;
    if (row.secret && value !== '') secrets.push(value);
  }
  return { variables, secrets };
}

/** A log line with every secret value replaced, longest first so a value inside another is masked too. */
export function maskSecrets(line: string, secrets: readonly string[]): string {
  let masked = line;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) masked = masked.replaceAll(secret, '********');
  return masked;
}
