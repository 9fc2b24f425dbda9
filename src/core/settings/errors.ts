// Error codes of instance settings. Data only: src/http/errors.ts merges this table into the one
// typed map that AppError accepts.

export const settingsErrorCodes = {
  unknown_setting: { status: 422, title: 'The settings map names a setting that is not allowed' },
  invalid_setting: { status: 422, title: 'A setting value does not fit its type' },
} as const satisfies Record<string, { status: number; title: string }>;
