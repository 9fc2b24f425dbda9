// The blobs a snapshot of the database refers to, under the keys their domains store them by. Blobs
// are never changed in place (release files are named by their hash, uploads by their row's id), so
// copying these after the snapshot is taken gives the blobs as they were at the snapshot.
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/client.js';
import { mediaBlobKey } from '../cms/media.js';
import { blobKey } from '../deploy/blobs.js';
import { uploadBlobKey } from '../forum/uploads.js';

export interface BlobReference {
  key: string;
  /**
   * A required blob missing from the store fails the backup (a concurrent delete got there first).
   * A build's input goes once the build has run, and its row keeps the key: copied only when there.
   */
  required: boolean;
}

export async function blobReferences(db: Executor): Promise<BlobReference[]> {
  const references: BlobReference[] = [];
  const required = (key: string): void => void references.push({ key, required: true });

  const files = await queryRows<{ hash: string; gzip: boolean; br: boolean }>(
    db,
    sql`select hash, bool_or(gzip_size is not null) as gzip, bool_or(brotli_size is not null) as br
          from deploy_release_files group by hash order by hash`,
  );
  for (const file of files) {
    required(blobKey(file.hash));
    if (file.gzip) required(blobKey(file.hash, 'gzip'));
    if (file.br) required(blobKey(file.hash, 'br'));
  }
  for (const { id } of await queryRows<{ id: string }>(db, sql`select id from cms_media order by id`))
    required(mediaBlobKey({ id }));
  for (const { id } of await queryRows<{ id: string }>(db, sql`select id from forum_uploads order by id`))
    required(uploadBlobKey({ id }));
  const attachments = await queryRows<{ key: string }>(
    db,
    sql`select distinct a->>'key' as key from helpdesk_entries, jsonb_array_elements(attachments) a order by 1`,
  );
  for (const { key } of attachments) required(key);
  const inputs = await queryRows<{ key: string }>(
    db,
    sql`select input_key as key from deploy_builds where input_key is not null order by 1`,
  );
  for (const { key } of inputs) references.push({ key, required: false });
  return references;
}
