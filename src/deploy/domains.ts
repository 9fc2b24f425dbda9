// Custom domains of static sites (decision 0142): a host name outside the sites domain that serves a
// site's live release on the edge. TLS is the proxy's: it asks `GET /api/domains/check?domain=` (as
// Caddy's on-demand TLS `ask` does) before it gets a certificate for a name (docs/custom-domains.md).
// Each node keeps which site a host name serves (core/sites/domain-directory.ts).
import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.js';
import { AppError } from '../http/errors.js';
import { siteDomains, type SiteDomainRow } from '../core/sites/tables.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Names that never reach a public certificate authority, or that are the machine itself. */
const SPECIAL_SUFFIXES = ['localhost', 'local', 'internal', 'invalid', 'test', 'example', 'arpa'];

/** The platform's own host names, which no site may claim. */
export interface PlatformHosts {
  portalHost: string;
  sitesDomain: string;
}

/** The domain as stored: lower case, without a trailing dot; 422 when it cannot be a public host name. */
export function normalizeDomain(input: string, platform: PlatformHosts): string {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  const labels = domain.split('.');
  if (
    domain.length > 253 ||
    labels.length < 2 ||
    !labels.every((label) => LABEL.test(label)) ||
    /^[0-9]+$/.test(labels.at(-1)!)
  )
    throw new AppError(
      'invalid_domain',
      `"${input}" is not a host name: labels of letters, digits and inner hyphens, separated by dots, like docs.example.com.`,
    );
  const sites = platform.sitesDomain;
  if (domain === platform.portalHost || domain === sites || domain.endsWith(`.${sites}`))
    throw new AppError(
      'domain_reserved',
      `"${domain}" is one of this platform's own hosts (the portal, or under ${sites}); every site has its own there already.`,
    );
  if (SPECIAL_SUFFIXES.includes(labels.at(-1)!))
    throw new AppError('invalid_domain', `"${domain}" is a special-use name that cannot have a public certificate.`);
  return domain;
}

export async function listDomains(db: Executor, siteId: string): Promise<SiteDomainRow[]> {
  return db.select().from(siteDomains).where(eq(siteDomains.siteId, siteId)).orderBy(asc(siteDomains.domain));
}

/** Adds a domain to the site; 409 `domain_taken` when any site (this one included) has it. */
export async function addDomain(
  db: Executor,
  siteId: string,
  input: string,
  platform: PlatformHosts,
): Promise<SiteDomainRow> {
  const domain = normalizeDomain(input, platform);
  const [row] = await db.insert(siteDomains).values({ domain, siteId }).onConflictDoNothing().returning();
  if (!row) throw new AppError('domain_taken', `"${domain}" already serves a site.`);
  return row;
}

export async function removeDomain(db: Executor, siteId: string, domain: string): Promise<void> {
  const [row] = await db.select().from(siteDomains).where(eq(siteDomains.domain, domain.toLowerCase()));
  if (!row || row.siteId !== siteId)
    throw new AppError('domain_not_found', `Site "${siteId}" has no domain "${domain}".`);
  await db.delete(siteDomains).where(eq(siteDomains.domain, row.domain));
}
