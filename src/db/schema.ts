// The whole database schema: every domain's tables, re-exported for Drizzle and drizzle-kit.
export * from '../core/accounts/tables.js';
export * from '../core/sites/tables.js';
export * from '../core/credentials/tables.js';
export * from '../core/plans/tables.js';
export * from '../jobs/tables.js';
export * from '../deploy/tables.js';
export * from '../core/settings/tables.js';
export * from '../forum/tables.js';
export * from '../deploy/builds/tables.js';
export * from '../deploy/git/tables.js';
export * from '../core/installation/tables.js';
export * from '../cms/tables.js';
export * from '../helpdesk/tables.js';
export * from '../purchase/tables.js';
export * from '../adapters/cache/tables.js';
