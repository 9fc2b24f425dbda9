// One registry of error codes. Every error a client sees is an AppError with a stable `code`, turned
// into RFC 9457 problem+json by the root error handler (see problem.ts).

export const errorCodes = {
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
  signup_closed: { status: 403, title: 'Sign-up is closed' },
  csrf_failed: { status: 403, title: 'Cross-site request refused' },
  // 404
  not_found: { status: 404, title: 'Not found' },
  site_not_found: { status: 404, title: 'Site not found' },
  credential_not_found: { status: 404, title: 'Credential not found' },
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
  unprocessable: { status: 422, title: 'The request cannot be processed' },
  // 429
  rate_limited: { status: 429, title: 'Too many requests' },
  // 5xx
  internal_error: { status: 500, title: 'Internal error' },
  not_ready: { status: 503, title: 'Service not ready' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCodes;

/** Codes registered by domain modules at import time (deploy, forum, ...). */
const extraCodes = new Map<string, { status: number; title: string }>();

export function registerErrorCodes(codes: Record<string, { status: number; title: string }>): void {
  for (const [code, entry] of Object.entries(codes)) extraCodes.set(code, entry);
}

export function lookupErrorCode(code: string): { status: number; title: string } {
  return (errorCodes as Record<string, { status: number; title: string }>)[code] ?? extraCodes.get(code) ?? errorCodes.internal_error;
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode | (string & {}),
    detail?: string,
    /** Extra members of the problem body (RFC 9457 extensions), e.g. `errors` or `allowed`. */
    readonly extensions: Record<string, unknown> = {},
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    const entry = lookupErrorCode(code);
    super(detail ?? entry.title);
    this.name = 'AppError';
    this.status = entry.status;
    this.title = entry.title;
  }
}
