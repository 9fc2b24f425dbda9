// What a new password must be: 10 to 200 characters, and not one of the common passwords that
// attackers try first (decision 0034). The list is the ranked list of leaked passwords zxcvbn ships
// (`@zxcvbn-ts/language-common`, MIT); only its entries the length rule lets through can ever match,
// so only those are kept in memory, lower-cased, loaded on first use.
import { createRequire } from 'node:module';

const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

const require = createRequire(import.meta.url);
let common: Set<string> | undefined;

function commonPasswords(): Set<string> {
  const { dictionary } = require('@zxcvbn-ts/language-common') as { dictionary: { 'passwords-common': string[] } };
  return new Set(
    dictionary['passwords-common']
      .filter((entry) => entry.length >= MIN_PASSWORD_LENGTH)
      .map((entry) => entry.toLowerCase()),
  );
}

/** Whether the password is on the list, ignoring case (`Password123` is `password123`). */
export function isCommonPassword(password: string): boolean {
  common ??= commonPasswords();
  return common.has(password.normalize('NFKC').toLowerCase());
}

/** Why a new password is refused, as the end of a sentence starting "The password", or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    return `must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`;
  }
  if (isCommonPassword(password))
    return 'is one of the most common passwords, which attackers try first; choose another';
  return undefined;
}
