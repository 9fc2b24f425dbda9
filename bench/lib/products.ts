// The content type the CMS benches read: products with a title, a unique SKU, a price, one of
// `categories` categories and a Markdown body (bench/cms.ts and bench/mixed.ts).
import { createType } from '../../src/cms/content-types.js';
import type pg from 'pg';
import type { Database } from '../../src/db/client.js';

export function createProductsType(db: Database, site: string, categories: number): ReturnType<typeof createType> {
  return createType(db, site, 'products', {
    name: 'Products',
    fields: [
      { name: 'title', type: 'text', required: true, options: { max_length: 200 } },
      { name: 'sku', type: 'slug', unique: true },
      { name: 'price', type: 'number' },
      { name: 'category', type: 'enum', options: { values: Array.from({ length: categories }, (_, i) => `c${i}`) } },
      { name: 'body', type: 'markdown' },
    ],
  });
}

/** `entries` published products of `typeId`, one a minute back from `now` (SQL), in one statement. */
export async function seedProducts(
  client: pg.Client,
  seed: { site: string; typeId: string; entries: number; categories: number; now: string },
): Promise<void> {
  const at = `${seed.now} - (n || ' minutes')::interval`;
  await client.query(
    `insert into cms_entries (id, site_id, type_id, slug, status, data, html, search_text, created_at, updated_at,
            published_at)
     select 'e' || lpad(n::text, 11, '0'), $1, $2, 'product-' || n, 'published',
            jsonb_build_object('title', 'Product ' || n, 'sku', 'sku-' || n, 'price', (n * 7919) % 100000 / 100.0,
              'category', 'c' || (n % ${seed.categories}), 'body', 'About product ' || n),
            jsonb_build_object('body', '<p>About product ' || n || '</p>'), 'Product ' || n || E'\\nAbout product ' || n,
            ${at}, ${at}, ${at}
     from generate_series(1, ${seed.entries}) n`,
    [seed.site, seed.typeId],
  );
}
