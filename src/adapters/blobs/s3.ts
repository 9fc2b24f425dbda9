import type { Readable } from 'node:stream';
import type { BlobsConfig } from '../../config/index.js';
import { DependencyUnavailable } from '../unavailable.js';
import { assertBlobKey, type BlobStore } from './types.js';

/** Blobs in an S3-compatible bucket. The SDK loads only when this store is chosen. */
export async function createS3BlobStore(options: BlobsConfig['s3']): Promise<BlobStore> {
  const s3 = await import('@aws-sdk/client-s3');
  const client = new s3.S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    // Many S3-compatible servers do not understand the SDK's default aws-chunked uploads with
    // trailing checksums (they store the chunk framing as data); send plain bodies instead.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
  });
  const Bucket = options.bucket;
  const objectKey = (key: string): string => {
    assertBlobKey(key);
    return options.prefix + key;
  };
  const isMissing = (error: unknown): boolean => {
    const name = (error as { name?: string }).name;
    return name === 'NoSuchKey' || name === 'NotFound';
  };

  // No answer, or a server error: the store is down. Other answers (access denied) are configuration errors.
  const outage = (error: unknown): unknown => {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    return status === undefined || status >= 500 ? new DependencyUnavailable('blob_store', error) : error;
  };
  const send = async <T>(sent: Promise<T>): Promise<T> => {
    try {
      return await sent;
    } catch (error) {
      throw isMissing(error) ? error : outage(error);
    }
  };

  return {
    driver: 's3',
    put: async (key, body, size) => {
      const length = Buffer.isBuffer(body) ? body.length : size;
      if (length === undefined) throw new Error('S3 uploads of streams need the size');
      await send(
        client.send(new s3.PutObjectCommand({ Bucket, Key: objectKey(key), Body: body, ContentLength: length })),
      );
    },
    get: async (key) => {
      try {
        const out = await send(client.send(new s3.GetObjectCommand({ Bucket, Key: objectKey(key) })));
        return out.Body as Readable;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    read: async (key) => {
      try {
        const out = await send(client.send(new s3.GetObjectCommand({ Bucket, Key: objectKey(key) })));
        return Buffer.from(await out.Body!.transformToByteArray());
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    has: async (key) => {
      try {
        await send(client.send(new s3.HeadObjectCommand({ Bucket, Key: objectKey(key) })));
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    delete: async (key) => {
      await send(client.send(new s3.DeleteObjectCommand({ Bucket, Key: objectKey(key) })));
    },
    list: (prefix = '') =>
      (async function* () {
        let token: string | undefined;
        do {
          const page = await send(
            client.send(
              new s3.ListObjectsV2Command({ Bucket, Prefix: options.prefix + prefix, ContinuationToken: token }),
            ),
          );
          for (const item of page.Contents ?? []) if (item.Key) yield item.Key.slice(options.prefix.length);
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      })(),
    ping: async () => {
      await send(client.send(new s3.HeadBucketCommand({ Bucket })));
    },
  };
}
