// Error codes of the help desk's inbound mail. Data only: src/http/errors.ts merges this table into
// the one typed map that AppError accepts.

export const helpdeskMailErrorCodes = {
  inbound_unauthorized: { status: 401, title: 'The inbound e-mail request is not signed or authorized' },
  attachment_too_large: { status: 413, title: 'An attachment is larger than the help desk accepts' },
  invalid_inbound_email: { status: 422, title: 'The e-mail message or provider payload cannot be read' },
  inbound_throttled: { status: 429, title: 'The sender has mailed the help desk too often in the last minute' },
} as const satisfies Record<string, { status: number; title: string }>;
