// The content type the CMS benches read: products with a title, a unique SKU, a price, one of
// `categories` categories and a Markdown body (bench/cms.ts and bench/mixed.ts).
import { createType } from '../../src/cms/content-types.js';
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
