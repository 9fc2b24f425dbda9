// What each cache scope reads (docs/decisions/0111-cache-seam.md): every column of each table
// listed moves the scope's epoch when written, through the triggers of migrations/0042 (and of
// 0047 when the table is truncated), unless it is named in `unread` with the reason.
// test/cache-dependencies.test.ts writes each such column with SQL, and truncates each table, and
// proves a second node's answer changes within the bound, so a trigger nobody wrote, or a column
// added to a table without a thought for the caches that read it, fails it.

export interface CacheDependency {
  /** The table read. */
  table: string;
  /** SQL over a row of the table: the scope its readers' entries are filed under. */
  scope: string;
  /** The column that names a row (its primary key). */
  key: string;
  /** Columns no cache of the scope reads, or that never change, with why. */
  unread: Record<string, string>;
}

const KEYS_NEVER_CHANGE = 'a row keeps its key and its owner for life';
const ENTRY_TEXT_ONLY = "a ticket list's search reads an entry's text and ticket only";

export const CACHE_DEPENDENCIES: readonly CacheDependency[] = [
  { table: 'sites', scope: `'site:' || id`, key: 'id', unread: { id: KEYS_NEVER_CHANGE } },
  {
    table: 'site_settings',
    scope: `'settings:' || site_id`,
    key: 'site_id',
    unread: { site_id: KEYS_NEVER_CHANGE },
  },
  {
    table: 'site_domains',
    scope: `'domain:' || domain`,
    key: 'domain',
    unread: { domain: KEYS_NEVER_CHANGE, created_at: 'a domain is added once' },
  },
  { table: 'plan_features', scope: `'plans'`, key: 'feature', unread: { feature: KEYS_NEVER_CHANGE } },
  {
    table: 'credentials',
    scope: `'credential:' || id`,
    key: 'id',
    unread: {
      last_used_at: 'noted now and then by a verification; no decision reads it',
      created_at: 'a credential is created once',
    },
  },
  {
    table: 'cms_content_types',
    scope: `'cms-types:' || site_id`,
    key: 'id',
    unread: { id: KEYS_NEVER_CHANGE, site_id: KEYS_NEVER_CHANGE },
  },
  {
    table: 'cms_content_types',
    scope: `'cms:' || id`,
    key: 'id',
    unread: { id: KEYS_NEVER_CHANGE, site_id: KEYS_NEVER_CHANGE },
  },
  {
    table: 'cms_entries',
    scope: `'cms:' || type_id`,
    key: 'id',
    unread: { id: KEYS_NEVER_CHANGE, site_id: KEYS_NEVER_CHANGE, type_id: KEYS_NEVER_CHANGE },
  },
  {
    table: 'helpdesk_tickets',
    scope: `'helpdesk:' || site_id`,
    key: 'id',
    unread: { id: KEYS_NEVER_CHANGE, site_id: KEYS_NEVER_CHANGE },
  },
  {
    table: 'helpdesk_entries',
    scope: `'helpdesk:' || site_id`,
    key: 'id',
    unread: {
      id: KEYS_NEVER_CHANGE,
      site_id: KEYS_NEVER_CHANGE,
      author_kind: ENTRY_TEXT_ONLY,
      author_id: ENTRY_TEXT_ONLY,
      internal: ENTRY_TEXT_ONLY,
      body_source: ENTRY_TEXT_ONLY,
      body_html: ENTRY_TEXT_ONLY,
      message_id: ENTRY_TEXT_ONLY,
      attachments: ENTRY_TEXT_ONLY,
      created_at: ENTRY_TEXT_ONLY,
    },
  },
  {
    table: 'helpdesk_contacts',
    scope: `'helpdesk:' || site_id`,
    key: 'id',
    unread: { id: KEYS_NEVER_CHANGE, site_id: KEYS_NEVER_CHANGE },
  },
];
