// Site-wide settings: from blume.json at the docs root, or from a `site:` mapping in the front
// matter of the root index page. blume.json wins field by field when both are present.
import { DocsBuildError } from './errors.js';

export interface SiteConfig {
  title: string;
  description?: string;
  /** Path of an image in the docs folder, shown beside the title and used as the favicon. */
  logo?: string;
  /** Top-level entries (file or folder names) in the order the navigation shows them. */
  nav?: string[];
  /** The top-level sections as links in the top bar, the one holding the page marked. */
  tabs?: boolean;
  /** Absolute origin of the production site, for sitemap.xml and canonical links. */
  url?: string;
  language: string;
  /** Base URL of the docs folder in the repository's web editor; a page's source path is appended. */
  editUrl?: string;
}

const KNOWN = new Set(['title', 'description', 'logo', 'nav', 'tabs', 'url', 'language', 'editUrl']);

export function parseSiteConfigJson(text: string, file: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw DocsBuildError.single('site_config', file, `is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw DocsBuildError.single('site_config', file, 'must hold a JSON object');
  return data as Record<string, unknown>;
}

export function resolveSiteConfig(sources: { file: string; data: unknown }[]): SiteConfig {
  const config: SiteConfig = { title: 'Documentation', language: 'en' };
  for (const { file, data } of sources) {
    if (data === undefined) continue;
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw DocsBuildError.single('site_config', file, 'site settings must be a mapping');
    const record = data as Record<string, unknown>;
    const fail = (field: string, expected: string): never => {
      throw DocsBuildError.single('site_config', file, `site setting "${field}" must be ${expected}`);
    };
    for (const key of Object.keys(record)) {
      if (!KNOWN.has(key))
        throw DocsBuildError.single(
          'site_config',
          file,
          `unknown site setting "${key}" (known: ${[...KNOWN].join(', ')})`,
        );
    }
    if (record.title !== undefined) {
      if (typeof record.title !== 'string' || record.title.trim() === '') fail('title', 'a non-empty string');
      config.title = (record.title as string).trim();
    }
    if (record.description !== undefined) {
      if (typeof record.description !== 'string') fail('description', 'a string');
      config.description = record.description as string;
    }
    if (record.logo !== undefined) {
      if (typeof record.logo !== 'string' || record.logo === '')
        fail('logo', 'the path of an image in the docs folder');
      config.logo = (record.logo as string).replace(/^\.?\//, '');
    }
    if (record.nav !== undefined) {
      if (!Array.isArray(record.nav) || !record.nav.every((item) => typeof item === 'string'))
        fail('nav', 'a list of file or folder names');
      config.nav = (record.nav as string[]).map((item) => item.replace(/^\.?\/|\/$/g, ''));
    }
    if (record.tabs !== undefined) {
      if (typeof record.tabs !== 'boolean') fail('tabs', 'true or false');
      config.tabs = record.tabs as boolean;
    }
    if (record.url !== undefined) {
      if (typeof record.url !== 'string' || !/^https?:\/\/[^/\s]+/.test(record.url))
        fail('url', 'an absolute http(s) URL');
      config.url = record.url as string;
    }
    if (record.editUrl !== undefined) {
      if (typeof record.editUrl !== 'string' || !/^https?:\/\/[^/\s]+/.test(record.editUrl))
        fail('editUrl', 'an absolute http(s) URL');
      config.editUrl = (record.editUrl as string).replace(/\/*$/, '/');
    }
    if (record.language !== undefined) {
      if (typeof record.language !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(record.language))
        fail('language', 'a language tag such as "en" or "pt-BR"');
      config.language = record.language as string;
    }
  }
  return config;
}
