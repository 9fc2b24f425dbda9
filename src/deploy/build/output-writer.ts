// Writes the built site with bounded concurrency and a byte budget: going over maxBytes fails the
// build before the file that would cross it is written, so a hostile source cannot fill the disk.
import { copyFile, mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { DocsBuildError } from './errors.js';

export class OutputWriter {
  bytes = 0;
  files = 0;
  private readonly madeDirs = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** First failed write; later calls rethrow it rather than queue more work. */
  private failure: unknown;

  constructor(
    private readonly root: string,
    private readonly maxBytes: number,
    private readonly concurrency = 32,
  ) {}

  /** Writes `content`, text or bytes; bytes in parts are written one after the other, in one call. */
  async write(rel: string, content: string | Uint8Array | readonly Uint8Array[]): Promise<void> {
    // Encoded once, here: its size is then known without a second pass over the text.
    const parts =
      typeof content === 'string' ? [Buffer.from(content)] : content instanceof Uint8Array ? [content] : content;
    const size = parts.reduce((sum, part) => sum + part.byteLength, 0);
    const target = this.reserve(rel, size);
    await this.run(async () => {
      await this.ensureDir(path.dirname(target));
      const file = await open(target, 'w');
      try {
        const { bytesWritten } = await file.writev(parts);
        // A regular file takes it all at once but for an error; a short write finishes in order.
        if (bytesWritten < size) await file.writeFile(Buffer.concat(parts).subarray(bytesWritten));
      } finally {
        await file.close();
      }
    });
  }

  async copy(rel: string, source: string, size: number): Promise<void> {
    const target = this.reserve(rel, size);
    await this.run(async () => {
      await this.ensureDir(path.dirname(target));
      await copyFile(source, target);
    });
  }

  /** Waits for every queued write; the first failure is thrown. */
  async flush(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure !== undefined) throw this.failure;
  }

  private reserve(rel: string, size: number): string {
    const target = path.join(this.root, rel);
    // Names were checked when the tree was scanned; this keeps a slip there from writing elsewhere.
    if (!target.startsWith(this.root + path.sep))
      throw DocsBuildError.single('hostile_path', rel, 'would be written outside the output folder');
    if (this.bytes + size > this.maxBytes) {
      throw DocsBuildError.single(
        'output_too_large',
        rel,
        `the built site would be larger than the limit of ${this.maxBytes} bytes`,
      );
    }
    this.bytes += size;
    this.files += 1;
    return target;
  }

  private async run(task: () => Promise<void>): Promise<void> {
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight);
    if (this.failure !== undefined) throw this.failure;
    const promise: Promise<void> = task()
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => this.inFlight.delete(promise));
    this.inFlight.add(promise);
  }

  private async ensureDir(dir: string): Promise<void> {
    if (this.madeDirs.has(dir)) return;
    await mkdir(dir, { recursive: true });
    this.madeDirs.add(dir);
  }
}
