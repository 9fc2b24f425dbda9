// `_headers` and `_redirects` (the Netlify syntax, a subset), parsed and validated at ingest so a bad
// rule rejects the release with its line number instead of misbehaving in production. The edge
// applies them with `compileRules`.
import { AppError } from '../http/errors.js';
import type { ReleaseRules } from './tables.js';

export const RULES_FILE_MAX_BYTES = 64 * 1024;
const MAX_RULES = 1000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Headers a site may not set: the edge's own (a site's would break caching, ranges or auth), and
// the framing and hop-by-hop ones that belong to the connection, not the file (RFC 9110 7.6.1,
// RFC 9112 6-7). One of these in a response makes Node throw, or the answer ambiguous.
const RESERVED_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'content-range',
  'transfer-encoding',
  'etag',
  'www-authenticate',
  'set-cookie',
  'date',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
]);

/** Whether `_headers` may set this header (any case). */
function isRuleHeaderAllowed(name: string): boolean {
  return !RESERVED_HEADERS.has(name.toLowerCase());
}
const REDIRECT_STATUSES = new Set([200, 301, 302, 303, 307, 308, 404, 410]);
const PATH_PATTERN = /^\/[^\s\\]*$/;

function invalid(code: 'invalid_headers_file' | 'invalid_redirects_file', line: number, detail: string): AppError {
  const file = code === 'invalid_headers_file' ? '_headers' : '_redirects';
  return new AppError(code, `${file} line ${line}: ${detail}.`, { file, line });
}

function meaningfulLines(text: string): { line: number; raw: string }[] {
  return text
    .split(/\r?\n/)
    .map((raw, index) => ({ line: index + 1, raw }))
    .filter(({ raw }) => raw.trim() !== '' && !raw.trim().startsWith('#'));
}

export function parseHeadersFile(text: string): ReleaseRules['headers'] {
  const rules: ReleaseRules['headers'] = [];
  for (const { line, raw } of meaningfulLines(text)) {
    const indented = /^\s/.test(raw);
    const content = raw.trim();
    if (!indented) {
      if (!PATH_PATTERN.test(content))
        throw invalid(
          'invalid_headers_file',
          line,
          `a path rule must start with "/" and hold no spaces, got "${content}"`,
        );
      if (rules.length >= MAX_RULES) throw invalid('invalid_headers_file', line, `more than ${MAX_RULES} rules`);
      rules.push({ path: content, headers: [] });
      continue;
    }
    const rule = rules.at(-1);
    if (!rule) throw invalid('invalid_headers_file', line, 'a header comes before any path');
    const colon = content.indexOf(':');
    if (colon <= 0) throw invalid('invalid_headers_file', line, 'expected "Name: value"');
    const name = content.slice(0, colon).trim();
    const value = content.slice(colon + 1).trim();
    if (!HEADER_NAME.test(name)) throw invalid('invalid_headers_file', line, `"${name}" is not a valid header name`);
    if (!isRuleHeaderAllowed(name)) {
      throw new AppError(
        'headers_file_reserved_header',
        `_headers line ${line}: the header "${name}" belongs to the server or the connection; a site cannot set it.`,
        { file: '_headers', line, header: name },
      );
    }
    // eslint-disable-next-line no-control-regex -- rejecting control characters is the point
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value))
      throw invalid('invalid_headers_file', line, 'the value holds control characters');
    // A header carries bytes: characters past U+00FF have no single-byte form (Node refuses them).
    if (/[^\t\u0020-\u00ff]/.test(value))
      throw invalid('invalid_headers_file', line, 'the value holds characters outside Latin-1; percent-encode them');
    rule.headers.push([name, value]);
  }
  const empty = rules.find((rule) => rule.headers.length === 0);
  if (empty) throw invalid('invalid_headers_file', lineOf(text, empty.path), `the path "${empty.path}" has no headers`);
  return rules;
}

function lineOf(text: string, content: string): number {
  return text.split(/\r?\n/).findIndex((raw) => raw.trim() === content) + 1;
}

function placeholdersOf(pattern: string): Set<string> {
  const names = new Set<string>();
  for (const match of pattern.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(match[1]!);
  if (pattern.endsWith('*')) names.add('splat');
  return names;
}

export function parseRedirectsFile(text: string): ReleaseRules['redirects'] {
  const rules: ReleaseRules['redirects'] = [];
  for (const { line, raw } of meaningfulLines(text)) {
    const parts = raw.trim().split(/\s+/);
    if (parts.length < 2) throw invalid('invalid_redirects_file', line, 'expected "from to [status]"');
    if (parts.length > 3)
      throw invalid(
        'invalid_redirects_file',
        line,
        'conditions and query matching are not supported; expected "from to [status]"',
      );
    const [from, to, statusText = '301'] = parts as [string, string, string?];
    if (!PATH_PATTERN.test(from))
      throw invalid('invalid_redirects_file', line, `the source must be a path starting with "/", got "${from}"`);
    if (from.indexOf('*') !== -1 && from.indexOf('*') !== from.length - 1)
      throw invalid('invalid_redirects_file', line, '"*" may only end the source path');
    const status = /^(\d{3})(!?)$/.exec(statusText);
    if (!status || !REDIRECT_STATUSES.has(Number(status[1]))) {
      throw invalid(
        'invalid_redirects_file',
        line,
        `status must be one of ${[...REDIRECT_STATUSES].join(', ')} (optionally with "!"), got "${statusText}"`,
      );
    }
    const code = Number(status[1]);
    const external = /^https?:\/\/[^\s/]+/.test(to);
    if (!external && !PATH_PATTERN.test(to))
      throw invalid('invalid_redirects_file', line, `the target must be a path or an http(s) URL, got "${to}"`);
    if (external && code === 200)
      throw invalid(
        'invalid_redirects_file',
        line,
        'a 200 rewrite must point at a path of this site; proxying is not supported',
      );
    const defined = placeholdersOf(from);
    for (const used of to.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
      // `:80`-like ports in URLs are not placeholders.
      if (external && /^\d/.test(used[1]!)) continue;
      if (!defined.has(used[1]!))
        throw invalid(
          'invalid_redirects_file',
          line,
          `the target uses ":${used[1]}", which the source does not define`,
        );
    }
    if (rules.length >= MAX_RULES) throw invalid('invalid_redirects_file', line, `more than ${MAX_RULES} rules`);
    rules.push({ from, to, status: code, force: status[2] === '!' });
  }
  return rules;
}

export interface CompiledRules {
  /** Extra response headers for a path, in file order, names in lower case. */
  headersFor(path: string): [string, string][];
  /** The first redirect rule matching the path, with its target filled in. */
  redirectFor(path: string): { to: string; status: number; force: boolean } | undefined;
}

interface Pattern {
  regex: RegExp;
  names: string[];
}

function compilePattern(pattern: string, splatAnywhere: boolean): Pattern {
  const names: string[] = [];
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') {
      names.push('splat');
      source += '(.*)';
    } else if (char === ':' && /[A-Za-z_]/.test(pattern[i + 1] ?? '')) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(pattern.slice(i + 1))![0];
      names.push(name);
      source += '([^/]+)';
      i += name.length;
    } else {
      source += char.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    }
  }
  // `/blog/*` also matches `/blog` itself, as on Netlify.
  if (!splatAnywhere && source.endsWith('/(.*)')) source = `${source.slice(0, -'/(.*)'.length)}(?:/(.*))?`;
  return { regex: new RegExp(`^${source}$`), names };
}

export function compileRules(rules: ReleaseRules): CompiledRules {
  const headers = rules.headers.map((rule) => ({
    pattern: compilePattern(rule.path, true),
    // Releases stored before a header was reserved keep their rules; the edge leaves such headers out.
    headers: rule.headers
      .filter(([name]) => isRuleHeaderAllowed(name))
      .map(([name, value]): [string, string] => [name.toLowerCase(), value]),
  }));
  const redirects = rules.redirects.map((rule) => ({ ...rule, pattern: compilePattern(rule.from, false) }));
  return {
    headersFor(path) {
      if (headers.length === 0) return [];
      return headers.filter((rule) => rule.pattern.regex.test(path)).flatMap((rule) => rule.headers);
    },
    redirectFor(path) {
      for (const rule of redirects) {
        const match = rule.pattern.regex.exec(path);
        if (!match) continue;
        const values = new Map(rule.pattern.names.map((name, index) => [name, match[index + 1] ?? '']));
        const to = rule.to.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => values.get(name) ?? whole);
        return { to, status: rule.status, force: rule.force };
      }
      return undefined;
    },
  };
}
