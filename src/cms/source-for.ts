// Picks the entry source of a type slug: a forum view or the CMS's own entries.
import { forumSource } from './forum-views.js';
import { FORUM_TYPE_SLUGS } from './forum-types.js';
import type { EntrySource } from './sources.js';
import { storedSource } from './stored-source.js';

export function sourceFor(slug: string): EntrySource {
  return FORUM_TYPE_SLUGS.includes(slug) ? forumSource(slug) : storedSource(slug);
}
