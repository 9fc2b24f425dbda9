// Everything the deploy API sends about releases and aliases, build variables and custom domains.
import type { UrlContext } from '../core/sites/presenters.js';
import { siteOrigin } from '../http/hosts.js';
import { readableValue } from './env-vars.js';
import type { AliasesOut, DomainOut, EnvVarOut, PreviewLinkOut, ReleaseOut } from './schemas.js';
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
    origin: releaseOrigin(row),
    created_by: row.createdBy,
    build_duration_ms: row.buildMs,
  };
}

/** How a release was made: pushed commits are built from git, other builds from an upload. */
export function releaseOrigin(row: ReleaseRow): ReleaseOut['origin'] {
  if (row.git) return 'git';
  return row.buildId ? 'build' : 'upload';
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

export function presentPreviewLink(link: { release: ReleaseRow; url: string; expiresAt: Date }): PreviewLinkOut {
  return { release: link.release.id, url: link.url, expires_at: link.expiresAt.toISOString() };
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
