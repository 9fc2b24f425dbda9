// Error codes of the purchase API. Data only: src/http/errors.ts merges this table.

export const purchaseErrorCodes = {
  workspace_not_found: { status: 404, title: 'Workspace not found' },
  workspace_canceled: { status: 409, title: 'The workspace is canceled' },
  unknown_plan: { status: 422, title: 'The plan does not exist' },
  idempotency_key_reused: { status: 422, title: 'The Idempotency-Key was used with another request body' },
} as const;
