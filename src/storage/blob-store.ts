import type { Readable } from 'node:stream';
import type { BlobInfo, ByteRange, PutOptions, PutResult, SignedUrlOptions } from './blob-types.ts';
import type { UrlSigner } from './url-signer.ts';

export * from './blob-types.ts';

/**
 * Where photos, videos, documents and reports live: a directory under the data directory, or an
 * S3-compatible bucket. The rest of the code talks only to this interface; it never sees a path
 * or a bucket. Objects are immutable: a key is generated once (`newKey`), written once (`put`),
 * read any number of times, and deleted.
 */
export interface BlobStore {
  readonly driver: 'file' | 's3';

  /** A fresh, unguessable key for a new object of `kind` (`photos/2026/11/<random>`). */
  newKey(kind: string): string;

  /**
   * Streams `body` into the object at `key`, hashing it on the way; memory use does not grow
   * with the object's size. All or nothing: if the body errors, ends short of `contentLength`,
   * exceeds `maxBytes` or the store fails, no object is left behind (and the error is rethrown).
   */
  put(key: string, body: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<PutResult>;

  /** The object (or one byte range of it) as a stream, or null when there is no such object. */
  get(key: string, options?: { range?: ByteRange }): Promise<BlobObject | null>;

  /**
   * The whole object in one buffer, or null when there is none: for jobs that need every byte at
   * once anyway (image decoders). One allocation of the object's size on the file driver.
   */
  read(key: string): Promise<Buffer | null>;

  /** What `get` would say about the object, without its bytes; null when there is none. */
  head(key: string): Promise<BlobInfo | null>;

  /** Removes the object; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;

  /** Removes an original and every variant of it (`variantKey(key, …)`), recorded or not. */
  deleteWithVariants(key: string): Promise<void>;

  /**
   * A URL that fetches the object without credentials until it expires (it works in an `<img>`
   * tag). File driver: `GET /v1/files/…` on this API, HMAC-signed; S3: a presigned GET URL.
   */
  signedUrl(key: string, options: SignedUrlOptions): Promise<string>;

  /** Signs and checks the URLs this API serves itself (`GET /v1/files/…`). */
  readonly urlSigner: UrlSigner;

  /** Releases connections (S3); the store is unusable afterwards. */
  close(): Promise<void>;
}

export interface BlobObject extends BlobInfo {
  /** The bytes (of `range` when one was asked for). Consume or destroy it. */
  stream: Readable;
  range: ByteRange | null;
}

/**
 * The store could not be reached or failed on its side (connection refused or timed out, 5xx):
 * nothing was stored. The API answers 503 storage_unavailable; jobs retry.
 */
export class StorageUnavailableError extends Error {
  readonly code = 'storage_unavailable';
  constructor(cause: unknown) {
    super(`The blob store is unreachable: ${cause instanceof Error ? cause.message || cause.name : String(cause)}`, { cause });
  }
}
