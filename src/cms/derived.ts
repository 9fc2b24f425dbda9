// Columns of an entry computed from its data on every write: the sanitized HTML of its Markdown
// fields (rendered exactly as forum posts are) and the plain text `q=` searches.
import { renderBody } from '../forum/markdown.js';
import type { FieldDefinition } from './fields.js';

interface DerivedColumns {
  html: Record<string, string>;
  searchText: string;
}

export function deriveEntryColumns(fields: readonly FieldDefinition[], data: Record<string, unknown>): DerivedColumns {
  const html: Record<string, string> = {};
  const text: string[] = [];
  for (const field of fields) {
    const value = data[field.name];
    if (typeof value !== 'string') continue;
    if (field.type === 'markdown') {
      const rendered = renderBody(value);
      html[field.name] = rendered.html;
      text.push(rendered.text);
    } else if (field.type === 'text') {
      text.push(value);
    }
  }
  return { html, searchText: text.join('\n') };
}
