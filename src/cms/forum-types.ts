// The forum's topics, posts, forums and categories as content types: views onto the forum's own
// tables, read through its visibility policy and written through its services.
import type { FieldDefinition } from './fields.js';

export interface ForumTypeDefinition {
  slug: string;
  name: string;
  fields: FieldDefinition[];
}

export const FORUM_TYPES: readonly ForumTypeDefinition[] = [
  {
    slug: 'categories',
    name: 'Forum categories',
    fields: [
      { name: 'name', type: 'text', required: true, options: { max_length: 100 } },
      { name: 'description', type: 'text', options: { max_length: 2000 } },
      { name: 'position', type: 'number', options: { integer: true } },
    ],
  },
  {
    slug: 'forums',
    name: 'Forums',
    fields: [
      { name: 'name', type: 'text', required: true, options: { max_length: 100 } },
      { name: 'description', type: 'text', options: { max_length: 2000 } },
      { name: 'category_id', type: 'relation', options: { type: 'categories' } },
      { name: 'visibility', type: 'enum', options: { values: ['public', 'members', 'staff'] } },
      { name: 'locked', type: 'boolean' },
      { name: 'topic_count', type: 'number', options: { integer: true } },
      { name: 'post_count', type: 'number', options: { integer: true } },
    ],
  },
  {
    slug: 'topics',
    name: 'Forum topics',
    fields: [
      { name: 'forum_id', type: 'relation', required: true, options: { type: 'forums' } },
      { name: 'title', type: 'text', required: true, options: { max_length: 200 } },
      { name: 'body', type: 'markdown', options: { max_length: 50_000 } },
      { name: 'author', type: 'text' },
      { name: 'pinned', type: 'boolean' },
      { name: 'locked', type: 'boolean' },
      { name: 'post_count', type: 'number', options: { integer: true } },
      { name: 'last_post_at', type: 'datetime' },
    ],
  },
  {
    slug: 'posts',
    name: 'Forum posts',
    fields: [
      { name: 'topic_id', type: 'relation', required: true, options: { type: 'topics' } },
      { name: 'parent_id', type: 'relation', options: { type: 'posts' } },
      { name: 'body', type: 'markdown', required: true, options: { max_length: 50_000 } },
      { name: 'author', type: 'text' },
    ],
  },
];

export const FORUM_TYPE_SLUGS: readonly string[] = FORUM_TYPES.map((t) => t.slug);
