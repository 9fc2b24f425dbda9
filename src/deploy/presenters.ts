// Everything the deploy API sends about releases and aliases, build variables and custom domains.
import type { UrlContext } from '../core/sites/presenters.js';
import { siteOrigin } from '../http/hosts.js';
import { readableValue } from './env-vars.js';
import type { AliasesOut, DomainOut, EnvVarOut, ReleaseOut } from './schemas.js';
import type { SiteDomainRow } from '../core/sites/tables.js';
import type { ReleaseRow, SiteAliasRow, SiteEnvVarRow } from './tables.js';

export function previewUrl(urls: UrlContext, siteId: string, releaseId: string): string {
  return siteOrigin(urls.base, urls.sitesDomain, `r-${releaseId}--${siteId}`);
}

export function presentRelease(row: ReleaseRow, urls: UrlContext): ReleaseOut {
  return {
    id: row.id,
    site: row.siteId,
    created_at: row.createdAt.toISOString(),
    source: row.source,
    file_count: row.fileCount,
    size: row.size,
    new_blobs: row.newBlobs,
    preview_url: previewUrl(urls, row.siteId, row.id),
    promotable: row.promotable,
    build_id: row.buildId,
    git: row.git ?? null,
  };
}

/** `auth` is the preview password: deploy-token holders need it to look at their previews. */
export function presentAliases(row: SiteAliasRow): AliasesOut {
  return { live: row.liveReleaseId, stage: row.stageReleaseId, auth: row.previewPassword };
}

export function presentUrls(urls: UrlContext, siteId: string): { production: string; stage: string } {
  return {
    production: siteOrigin(urls.base, urls.sitesDomain, siteId),
    stage: siteOrigin(urls.base, urls.sitesDomain, `stage--${siteId}`),
  };
}

/** A variable as the API and the console show it: a secret's value never. */
export function presentEnvVar(row: SiteEnvVarRow, secretKey: string): EnvVarOut {
  return {
    name: row.name,
    context: row.context,
    value: readableValue(row, secretKey),
    secret: row.secret,
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentDomain(row: SiteDomainRow): DomainOut {
  return {
    domain: row.domain,
    site: row.siteId,
    url: `https://${row.domain}`,
    created_at: row.createdAt.toISOString(),
  };
}
