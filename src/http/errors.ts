// One typed map of error codes. Every error a client sees is an AppError with a stable `code`, turned
// into RFC 9457 problem+json by the root error handler (see problem.ts). Each domain declares its
// codes in a data-only `errors.ts` merged here, so a code that is in no table does not compile.
import { aiErrorCodes } from '../adapters/ai/errors.js';
import { cmsErrorCodes } from '../cms/errors.js';
import { mcpErrorCodes } from '../mcp/errors.js';
import { settingsErrorCodes } from '../core/settings/errors.js';
import { siteErrorCodes } from '../core/sites/errors.js';
import { deployErrorCodes } from '../deploy/errors.js';
import { forumErrorCodes } from '../forum/errors.js';
import { helpdeskErrorCodes } from '../helpdesk/errors.js';
import { helpdeskMailErrorCodes } from '../helpdesk/mail/errors.js';
import { purchaseErrorCodes } from '../purchase/errors.js';

interface ErrorEntry {
  status: number;
  title: string;
}

/** Codes every surface uses: malformed input, credentials, the generic statuses. */
const httpErrorCodes = {
  // 400
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  validation_failed: { status: 400, title: 'The request does not match the schema' },
  bad_request: { status: 400, title: 'Bad request' },
  // 401
  authentication_required: { status: 401, title: 'Authentication required' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  invalid_token: { status: 401, title: 'The credential is invalid or revoked' },
  // 403
  forbidden: { status: 403, title: 'Not allowed' },
  scope_missing: { status: 403, title: 'The credential lacks a required scope' },
  plan_required: { status: 403, title: 'The site plan does not include this feature' },
  plan_not_selectable: { status: 403, title: 'Only platform administrators set a paid plan' },
  signup_closed: { status: 403, title: 'Sign-up is closed' },
  csrf_failed: { status: 403, title: 'Cross-site request refused' },
  // 404
  not_found: { status: 404, title: 'Not found' },
  site_not_found: { status: 404, title: 'Site not found' },
  credential_not_found: { status: 404, title: 'Credential not found' },
  // 405
  method_not_allowed: { status: 405, title: 'The method is not allowed here' },
  // 409
  conflict: { status: 409, title: 'Conflict' },
  site_exists: { status: 409, title: 'A site with this id exists' },
  username_taken: { status: 409, title: 'The username is taken' },
  email_taken: { status: 409, title: 'The e-mail address is taken' },
  // 413, 415
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  // 422
  invalid_site_id: { status: 422, title: 'The site id is not allowed' },
  site_not_community: { status: 422, title: 'Only community sites have instance settings and API keys' },
  weak_password: { status: 422, title: 'The password is not allowed' },
  json_too_deep: { status: 422, title: 'The JSON nests too deep' },
  unprocessable: { status: 422, title: 'The request cannot be processed' },
  // 429
  rate_limited: { status: 429, title: 'Too many requests' },
  login_locked: { status: 429, title: 'Too many failed logins' },
  // 5xx
  internal_error: { status: 500, title: 'Internal error' },
  not_ready: { status: 503, title: 'Service not ready' },
  database_unavailable: { status: 503, title: 'The database cannot be reached; try again shortly' },
  blob_store_unavailable: { status: 503, title: 'The file store cannot be reached; try again shortly' },
  site_suspended: { status: 503, title: 'The site is suspended' },
} as const satisfies Record<string, ErrorEntry>;

/** The domains' tables, in one list so the test can check that no two declare the same code. */
export const errorTables = {
  http: httpErrorCodes,
  settings: settingsErrorCodes,
  sites: siteErrorCodes,
  deploy: deployErrorCodes,
  forum: forumErrorCodes,
  cms: cmsErrorCodes,
  mcp: mcpErrorCodes,
  helpdesk: helpdeskErrorCodes,
  helpdeskMail: helpdeskMailErrorCodes,
  ai: aiErrorCodes,
  purchase: purchaseErrorCodes,
} as const;

export const errorCodes = {
  ...httpErrorCodes,
  ...settingsErrorCodes,
  ...siteErrorCodes,
  ...deployErrorCodes,
  ...forumErrorCodes,
  ...cmsErrorCodes,
  ...mcpErrorCodes,
  ...helpdeskErrorCodes,
  ...helpdeskMailErrorCodes,
  ...aiErrorCodes,
  ...purchaseErrorCodes,
} as const;

export type ErrorCode = keyof typeof errorCodes;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCodes, code);
}

/** The entry of a code; an unknown one (from a client-facing string) reads as an internal error. */
export function lookupErrorCode(code: string): ErrorEntry {
  return isErrorCode(code) ? errorCodes[code] : errorCodes.internal_error;
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    detail?: string,
    /** Extra members of the problem body (RFC 9457 extensions), e.g. `errors` or `allowed`. */
    readonly extensions: Record<string, unknown> = {},
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    const entry: ErrorEntry = errorCodes[code];
    super(detail ?? entry.title);
    this.name = 'AppError';
    this.status = entry.status;
    this.title = entry.title;
  }
}
