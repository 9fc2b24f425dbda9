// How the editor names fields and enum values ("Released on" for `released_on`), names an entry (lists,
// relation pickers) and says where it stands.
import type { ContentTypeOut, EntryOut } from '../schemas.js';

/** What a list row shows: the first text field's value, else the slug, else the id. */
export function entryLabel(type: ContentTypeOut, entry: Pick<EntryOut, 'data' | 'slug' | 'id'>): string {
  const first = type.fields.find((f) => f.type === 'text' || f.type === 'slug');
  const value = first ? (entry.data as Record<string, unknown>)[first.name] : undefined;
  return typeof value === 'string' && value !== '' ? value : (entry.slug ?? entry.id);
}

export function stateOf(entry: EntryOut, now: Date): string {
  if (entry.status === 'draft') return 'Draft';
  return entry.published_at && new Date(entry.published_at) > now ? 'Scheduled' : 'Published';
}

/** Words shown in capitals wherever they stand in a name. */
const ACRONYMS = new Set(['api', 'html', 'id', 'seo', 'url']);

/** A machine name as people read it: `released_on` → "Released on", `seo_title` → "SEO title". */
export function humanName(name: string): string {
  const words = name.split(/[_-]+/).filter((word) => word !== '');
  if (words.length === 0) return name;
  return words
    .map((word, i) =>
      ACRONYMS.has(word.toLowerCase()) ? word.toUpperCase() : i === 0 ? word[0]!.toUpperCase() + word.slice(1) : word,
    )
    .join(' ');
}
