// Error codes of the Content API. Data only: src/http/errors.ts merges this table into the one
// typed map that AppError accepts. (`slug_taken` is the forum's, shared.)

export const cmsErrorCodes = {
  invalid_filter: {
    status: 400,
    title: 'The filter, sort, fields or include parameter names an unknown field or operator',
  },
  ai_disabled: { status: 403, title: 'AI content drafting is off for this site' },
  content_type_not_found: { status: 404, title: 'Content type not found' },
  entry_not_found: { status: 404, title: 'Entry not found' },
  revision_not_found: { status: 404, title: 'The entry keeps no such revision' },
  draft_preview_invalid: { status: 404, title: 'The preview link is wrong, for another entry, or expired' },
  global_not_found: { status: 404, title: 'Settings group not found' },
  webhook_not_found: { status: 404, title: 'Webhook not found' },
  media_not_found: { status: 404, title: 'Media not found' },
  media_missing: { status: 400, title: 'The upload has no multipart field `file`' },
  media_in_use: { status: 409, title: 'Entries still reference this media' },
  media_too_large: { status: 413, title: 'The file is larger than media allow' },
  media_type_refused: {
    status: 415,
    title: 'The file is not an accepted media type, or its bytes are not what its name and type say',
  },
  webhook_target_refused: {
    status: 422,
    title: 'The webhook URL resolves to a private, loopback or link-local address',
  },
  content_type_exists: { status: 409, title: 'A content type with this slug exists' },
  builtin_type: { status: 409, title: 'Built-in content types cannot be changed or deleted' },
  lossy_type_change: { status: 409, title: 'The type change would lose entry data' },
  unique_violation: { status: 409, title: 'Another entry has this value in a unique field' },
  ai_not_configured: { status: 409, title: 'AI content drafting is on but its provider settings are incomplete' },
  precondition_failed: { status: 412, title: 'The entry changed since the ETag in If-Match' },
  invalid_content_type: { status: 422, title: 'The content type definition is not valid' },
  unknown_field: { status: 422, title: 'The entry names a field its type does not have' },
  invalid_field_value: { status: 422, title: 'A field value does not fit the field' },
  relation_not_found: { status: 422, title: 'A relation names an entry that does not exist' },
  ai_unsupported_type: { status: 422, title: 'AI drafting fills custom types and articles only' },
} as const satisfies Record<string, { status: number; title: string }>;
