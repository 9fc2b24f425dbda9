import { siteOrigin } from '../http/hosts.js';
import type { UrlContext } from '../core/sites/presenters.js';
import type { Workspace } from './service.js';
import type { AuditRow } from './tables.js';
import type { AuditOut, WorkspaceOut } from './schemas.js';

export function presentWorkspace({ site, ownerEmail, ownerPending }: Workspace, urls: UrlContext): WorkspaceOut {
  return {
    id: site.id,
    site_id: site.id,
    kind: site.kind,
    plan: site.plan,
    status: site.status,
    owner_email: ownerEmail,
    owner_pending: ownerPending ?? false,
    url: siteOrigin(urls.base, urls.sitesDomain, site.id),
    created_at: site.createdAt.toISOString(),
    canceled_at: site.canceledAt?.toISOString() ?? null,
  };
}

export function presentAudit(row: AuditRow): AuditOut {
  return {
    id: row.id,
    credential_id: row.credentialId,
    account_id: row.accountId,
    method: row.method,
    path: row.path,
    target: row.target,
    status: row.status,
    created_at: row.createdAt.toISOString(),
  };
}
