// Files customers attach in the portal (`/support`): the kinds and size forum uploads allow, told by
// their bytes, images without their metadata (forum/uploads.ts), one blob each under a fresh key,
// named on the entry as any mail attachment is. They go back out only as downloads
// (`sendTicketAttachment`), with nosniff and a sandbox, whatever their type.
import type { FastifyReply } from 'fastify';
import type { BlobStore } from '../adapters/blobs/index.js';
import { AppError } from '../http/errors.js';
import type { UploadedFile } from '../http/uploads.js';
import { contentDisposition } from '../lib/content-disposition.js';
import { cleanFilename } from '../lib/file-types.js';
import { newId } from '../lib/ids.js';
import { checkUploadedFile, UPLOAD_KINDS } from '../forum/uploads.js';
import type { AttachmentRef, ThreadEntryRow } from './tables.js';

/** Checks a customer's file and stores it; answers what the entry names it by. */
export async function storeCustomerAttachment(
  blobs: BlobStore,
  siteId: string,
  upload: UploadedFile,
): Promise<AttachmentRef> {
  const filename = cleanFilename(upload.filename);
  const { kind, bytes } = checkUploadedFile(upload, UPLOAD_KINDS, filename);
  const key = `helpdesk/${siteId}/uploads/${newId()}`;
  await blobs.put(key, bytes, bytes.length);
  return { key, filename, content_type: kind.type, size: bytes.length };
}

/** The attachments a customer sees on an entry: what was sent, not the files the desk made of a mail. */
export function customerAttachments(entry: ThreadEntryRow): Array<{ index: number; attachment: AttachmentRef }> {
  return entry.attachments
    .map((attachment, i) => ({ index: i + 1, attachment }))
    .filter(({ attachment }) => attachment.role === undefined);
}

/** Sends a thread attachment as a download that no browser runs or sniffs. */
export async function sendTicketAttachment(
  blobs: BlobStore,
  reply: FastifyReply,
  attachment: AttachmentRef | undefined,
): Promise<FastifyReply> {
  const bytes = attachment ? await blobs.get(attachment.key) : undefined;
  if (!attachment || !bytes) throw new AppError('attachment_not_found', 'No such attachment on that entry.');
  return reply
    .header('content-type', attachment.content_type || 'application/octet-stream')
    .header('content-length', attachment.size)
    .header('content-disposition', contentDisposition('attachment', attachment.filename))
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cache-control', 'private, no-store')
    .send(bytes);
}
