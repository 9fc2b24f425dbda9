// Builds tar.gz archives in memory for deploy tests, hostile ones included, and the multipart body
// that uploads them.
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

export interface ArchiveEntry {
  name: string;
  content?: string | Buffer;
  type?: tar.Header['type'];
  linkname?: string;
  /** Raw PAX records, e.g. a long or non-UTF-8 path. */
  pax?: Record<string, string>;
}

export async function tarball(entries: ArchiveEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk) => chunks.push(chunk as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const entry of entries) {
    const body = entry.content === undefined ? undefined : Buffer.from(entry.content);
    const header = {
      name: entry.name,
      type: entry.type ?? 'file',
      mode: entry.type === 'directory' ? 0o755 : 0o644,
      ...(entry.linkname ? { linkname: entry.linkname } : {}),
      ...(entry.pax ? { pax: entry.pax } : {}),
      ...(body ? { size: body.length } : {}),
    } as Parameters<typeof pack.entry>[0];
    await new Promise<void>((resolve, reject) => {
      if (body) pack.entry(header, body, (error) => (error ? reject(error) : resolve()));
      else pack.entry(header, (error) => (error ? reject(error) : resolve())).end(undefined);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** Files as `{path: content}` into a tar.gz. */
export async function siteArchive(files: Record<string, string | Buffer>, extra: ArchiveEntry[] = []): Promise<Buffer> {
  return gzipSync(await tarball([...Object.entries(files).map(([name, content]) => ({ name, content })), ...extra]));
}

export type FormPart =
  { name: string; value: string } | { name: string; filename: string; content: Buffer | string; contentType?: string };

/** A multipart/form-data body of fields and files, in the order given (as browsers send the form's controls). */
export function multipartForm(parts: FormPart[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----blume${Math.random().toString(16).slice(2)}`;
  const chunks = parts.map((part) =>
    'value' in part
      ? Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`)
      : Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
          ),
          Buffer.from(part.content),
          Buffer.from('\r\n'),
        ]),
  );
  return {
    payload: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

export function multipartBody(
  field: string,
  content: Buffer,
  filename = 'site.tar.gz',
  contentType = 'application/gzip',
): { payload: Buffer; headers: Record<string, string> } {
  return multipartForm([{ name: field, filename, content, contentType }]);
}
