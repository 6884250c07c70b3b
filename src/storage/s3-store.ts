import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { StorageUnavailableError, type BlobInfo, type BlobObject, type BlobStore, type ByteRange, type PutOptions, type PutResult, type SignedUrlOptions } from './blob-store.ts';
import { checkRange } from './file-store.ts';
import { contentDisposition } from './headers.ts';
import { assertBlobKey, newBlobKey } from './keys.ts';
import { checkPutOptions, checkSignedUrlOptions, metered, signingTime, type Tally } from './metered.ts';
import { isStoreOutage } from './unavailable.ts';
import type { UrlSigner } from './url-signer.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every key: '' or ends with '/'. */
  prefix: string;
  client: S3ClientConfig;
  urlSigner: UrlSigner;
  now?: () => number;
}

/**
 * Parts of a multipart upload: S3's minimum. With at most QUEUE_SIZE parts in flight and one
 * being filled, an upload holds about (QUEUE_SIZE + 1) × PART_SIZE in memory, whatever its size.
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * A store that does not answer must not hold a request or a job: 3 s to connect, and a socket
 * silent for 30 s (no bytes either way) fails. The SDK retries each call a few times first.
 */
const CONNECT_TIMEOUT_MS = 3_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** The store's outages as StorageUnavailableError (503 / retried), everything else as it was. */
async function outageAware<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (err) {
    throw isStoreOutage(err) ? new StorageUnavailableError(err) : err;
  }
}

const isNotFound = (err: unknown) =>
  err instanceof S3ServiceException && (err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata.httpStatusCode === 404);

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …), under an optional prefix.
 * Uploads go through lib-storage's Upload: one PUT for small bodies, a multipart upload otherwise,
 * aborted on any failure so that nothing half-written is ever completed. Signed URLs are S3
 * presigned GET URLs, so clients download straight from the bucket.
 */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  readonly urlSigner: UrlSigner;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(options: S3BlobStoreOptions) {
    this.client = new S3Client({
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: SOCKET_TIMEOUT_MS },
      ...options.client,
    });
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.urlSigner = options.urlSigner;
    this.now = options.now ?? Date.now;
  }

  /** Fails with a clear message when the bucket is unreachable, missing or not ours to use. */
  async checkBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const status = (err as S3ServiceException).$metadata?.httpStatusCode;
      const why = status === 404 ? 'it does not exist' : status === 403 ? 'access is denied (check the credentials)'
        : (err as Error).message || (err as Error).name;
      throw new Error(`The S3 bucket "${this.bucket}" is not usable: ${why}`, { cause: err });
    }
  }

  newKey(kind: string): string {
    return newBlobKey(kind, new Date(this.now()));
  }

  async put(key: string, body: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<PutResult> {
    return outageAware(this.upload(key, body, options));
  }

  async read(key: string): Promise<Buffer | null> {
    return outageAware(this.readWhole(key));
  }

  async get(key: string, options: { range?: ByteRange } = {}): Promise<BlobObject | null> {
    return outageAware(this.fetch(key, options));
  }

  async head(key: string): Promise<BlobInfo | null> {
    return outageAware(this.headObject(key));
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    await outageAware(this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey })));
  }

  async deleteWithVariants(key: string): Promise<void> {
    return outageAware(this.deleteAll(key));
  }

  private async upload(key: string, body: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<PutResult> {
    const objectKey = this.objectKey(key);
    checkPutOptions(options);
    const tally: Tally = { bytes: 0, sha256: null };
    // A byte stream (not object mode) with a small buffer: backpressure reaches the source.
    const source = Readable.from(metered(body, tally, options), { objectMode: false, highWaterMark: 64 * 1024 });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: source, ContentType: options.contentType },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      // We abort it ourselves: lib-storage would throw the abort's own failure instead of the
      // body's error, and the caller needs that one (a too-large body is a 413, not a 500).
      leavePartsOnError: true,
    });
    try {
      await upload.done();
    } catch (err) {
      source.destroy();
      if (upload.uploadId) {
        // Never completed, so never visible; if even the abort fails, the bucket's lifecycle rule
        // for incomplete multipart uploads (docs/storage.md) reclaims the parts.
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: objectKey, UploadId: upload.uploadId }))
          .catch(() => undefined);
      }
      throw err;
    }
    return { byteSize: tally.bytes, sha256: tally.sha256! };
  }

  private async readWhole(key: string): Promise<Buffer | null> {
    const object = await this.fetch(key);
    if (!object) return null;
    const out = Buffer.allocUnsafe(object.byteSize);
    let at = 0;
    for await (const chunk of object.stream as AsyncIterable<Buffer>) {
      if (at + chunk.length > out.length) {
        object.stream.destroy();
        throw new Error(`${key} is longer than the ${object.byteSize} bytes S3 announced`);
      }
      chunk.copy(out, at);
      at += chunk.length;
    }
    if (at !== out.length) throw new Error(`${key} ended after ${at} of the ${object.byteSize} bytes S3 announced`);
    return out;
  }

  private async fetch(key: string, options: { range?: ByteRange } = {}): Promise<BlobObject | null> {
    const objectKey = this.objectKey(key);
    const range = options.range ?? null;
    try {
      const out = await this.client.send(new GetObjectCommand({
        Bucket: this.bucket,
        Key: objectKey,
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }));
      const byteSize = range ? totalFromContentRange(out.ContentRange) : out.ContentLength;
      try {
        if (byteSize === undefined) throw new Error(`S3 answered GetObject for ${objectKey} without a size`);
        if (range) checkRange(range, byteSize);
        // A server that ignored or widened the range would have us send the wrong bytes.
        if (range && !out.ContentRange?.startsWith(`bytes ${range.start}-${range.end}/`)) {
          throw new Error(`The S3 server answered bytes ${range.start}-${range.end} of ${objectKey} with ${out.ContentRange ?? 'the whole object'}`);
        }
      } catch (err) {
        (out.Body as Readable | undefined)?.destroy();
        throw err;
      }
      return {
        byteSize,
        contentType: out.ContentType ?? 'application/octet-stream',
        etag: out.ETag ?? `"${byteSize}"`,
        sha256: null,
        stream: out.Body as Readable,
        range,
      };
    } catch (err) {
      if (isNotFound(err)) return null;
      if ((err as S3ServiceException).$metadata?.httpStatusCode === 416) throw new RangeError(`bytes ${range?.start}-${range?.end} are not within ${key}`);
      throw err;
    }
  }

  private async headObject(key: string): Promise<BlobInfo | null> {
    const objectKey = this.objectKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return { byteSize: out.ContentLength ?? 0, contentType: out.ContentType ?? 'application/octet-stream', etag: out.ETag ?? '""', sha256: null };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  private async deleteAll(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    if (key.includes('.')) throw new Error(`${key} is a variant; pass the original's key`);
    // The random part has a fixed length, so this prefix matches the original and its variants only.
    const listed = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: objectKey, MaxKeys: 1000 }));
    const keys = (listed.Contents ?? []).map((o) => o.Key!).filter((k) => k === objectKey || k.startsWith(`${objectKey}.`));
    await Promise.all(keys.map((k) => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: k }))));
  }

  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    const objectKey = this.objectKey(key);
    checkSignedUrlOptions(options);
    const disposition = options.disposition ?? (options.filename !== undefined ? 'inline' : undefined);
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: objectKey,
      ...(options.contentType !== undefined ? { ResponseContentType: options.contentType } : {}),
      ...(disposition ? { ResponseContentDisposition: contentDisposition(disposition, options.filename) } : {}),
    });
    return getSignedUrl(this.client, command, {
      expiresIn: options.expiresInSeconds,
      signingDate: new Date(signingTime(this.now(), options.expiresInSeconds) * 1000),
    });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    assertBlobKey(key);
    return `${this.prefix}${key}`;
  }
}

/** The total size from `Content-Range: bytes 0-9/1234`. */
function totalFromContentRange(header: string | undefined): number | undefined {
  const m = header ? /\/(\d+)$/.exec(header) : null;
  return m ? Number(m[1]) : undefined;
}
