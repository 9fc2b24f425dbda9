// Error codes of the MCP endpoint. Data only: src/http/errors.ts merges this table into the one
// typed map that AppError accepts. (Tool failures are not HTTP errors: they are tool results with isError.)

export const mcpErrorCodes = {
  origin_not_allowed: { status: 403, title: 'Requests from this Origin may not use the MCP endpoint' },
} as const;
