// Error codes of AI provider calls. Data only: src/http/errors.ts merges this table into the one
// typed map that AppError accepts.

export const aiErrorCodes = {
  ai_provider_error: { status: 502, title: 'The AI provider answered with an error' },
  ai_refused: { status: 502, title: 'The AI provider refused the request' },
  ai_invalid_output: { status: 502, title: 'The AI provider answered something unusable' },
  ai_target_refused: {
    status: 409,
    title: 'AI_BASE_URL is a private, loopback or link-local address, which this server does not call',
  },
  ai_timeout: { status: 504, title: 'The AI provider did not answer in time' },
} as const satisfies Record<string, { status: number; title: string }>;
