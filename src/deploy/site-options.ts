// Site options from `_blume.json` at the archive root (DESIGN section 5: explicit `spa` and
// trailing-slash options, never a silent SPA fallback). Validated at ingest, so a bad file rejects
// the release; stored with the release's rules, so every release carries its own behaviour.
//   { "spa": true, "trailing_slash": "always" }
import { AppError } from '../http/errors.js';

type TrailingSlash = 'auto' | 'always' | 'never';

export interface SiteOptions {
  /** Misses on extension-less paths answer the root `index.html` with 200 (client-side routing). */
  spa: boolean;
  /**
   * `auto`: a folder gets its slash by 301, `/name` also serves `name.html` (the default).
   * `always`: pages are addressed with a trailing slash; `/about` 301s to `/about/`.
   * `never`: pages are addressed without one; `/about/` 301s to `/about`.
   */
  trailingSlash: TrailingSlash;
}

export const DEFAULT_SITE_OPTIONS: SiteOptions = { spa: false, trailingSlash: 'auto' };
export const SITE_OPTIONS_FILE = '_blume.json';
const TRAILING_SLASH: TrailingSlash[] = ['auto', 'always', 'never'];

function invalid(detail: string): AppError {
  return new AppError('invalid_blume_json', `${SITE_OPTIONS_FILE}: ${detail}`, { file: SITE_OPTIONS_FILE });
}

export function parseSiteOptions(text: string): SiteOptions {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`not valid JSON (${(error as Error).message}).`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('must be a JSON object.');
  const options: SiteOptions = { ...DEFAULT_SITE_OPTIONS };
  for (const [key, field] of Object.entries(value)) {
    if (key === 'spa') {
      if (typeof field !== 'boolean') throw invalid('"spa" must be true or false.');
      options.spa = field;
    } else if (key === 'trailing_slash') {
      if (!TRAILING_SLASH.includes(field as TrailingSlash))
        throw invalid(`"trailing_slash" must be one of ${TRAILING_SLASH.map((t) => `"${t}"`).join(', ')}.`);
      options.trailingSlash = field as TrailingSlash;
    } else {
      throw invalid(`unknown option "${key}" (known: "spa", "trailing_slash").`);
    }
  }
  return options;
}
