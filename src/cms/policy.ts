// Who may do what on the Content API. API keys carry scopes; the site owner's account session (or a
// platform admin's) acts as `admin`. Scopes nest: `admin` includes `cms-write`, which includes
// `cms-read` (docs/decisions/0043-cms-access.md).
import type { MemberViewer } from '../forum/policy.js';
import { AppError } from '../http/errors.js';
import type { StatusView } from './query.js';

export type CmsScope = 'cms-read' | 'cms-write' | 'admin';

const RANK: Record<CmsScope, number> = { 'cms-read': 1, 'cms-write': 2, admin: 3 };

export interface CmsCaller {
  kind: 'api_key' | 'session';
  /** The highest scope the caller holds. */
  scope: CmsScope;
  /** The credential id, the account id, or in the editor the member id: who a revision names. */
  id: string;
  /** How revisions name the caller: the key's name, the account's username, the member's username. */
  name: string;
  /**
   * The forum member a session in the community's own editor acts for. Forum views then read as
   * this member, whatever the status asked, so an editor sees no more of the forum than their
   * forum token does (docs/decisions/0048-cms-editor.md).
   */
  member?: MemberViewer;
}

/** The highest Content API scope among a key's scopes, or undefined when it has none. */
export function highestScope(scopes: readonly string[]): CmsScope | undefined {
  let best: CmsScope | undefined;
  for (const scope of scopes) {
    if (scope in RANK && (!best || RANK[scope as CmsScope] > RANK[best])) best = scope as CmsScope;
  }
  return best;
}

function holds(caller: CmsCaller, scope: CmsScope): boolean {
  return RANK[caller.scope] >= RANK[scope];
}

export function requireScope(caller: CmsCaller, scope: CmsScope): void {
  if (!holds(caller, scope))
    throw new AppError('scope_missing', `This needs an API key with the "${scope}" scope.`, { required_scope: scope });
}

/**
 * The entries a caller may ask for: published (live) ones for everyone; drafts and scheduled
 * entries (`status=draft|any`) need `cms-write`.
 */
export function authorizeStatusView(caller: CmsCaller, requested: StatusView | undefined): StatusView {
  const view = requested ?? 'published';
  if (view !== 'published') requireScope(caller, 'cms-write');
  return view;
}
