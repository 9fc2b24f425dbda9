// How the editor names an entry (lists, relation pickers) and says where it stands.
import type { ContentTypeOut, EntryOut } from '../schemas.js';

/** What a list row shows: the first text field's value, else the slug, else the id. */
export function entryLabel(type: ContentTypeOut, entry: EntryOut): string {
  const first = type.fields.find((f) => f.type === 'text' || f.type === 'slug');
  const value = first ? (entry.data as Record<string, unknown>)[first.name] : undefined;
  return typeof value === 'string' && value !== '' ? value : (entry.slug ?? entry.id);
}

export function stateOf(entry: EntryOut, now: Date): string {
  if (entry.status === 'draft') return 'Draft';
  return entry.published_at && new Date(entry.published_at) > now ? 'Scheduled' : 'Published';
}
