/** The values a blob store takes and gives (write options, results, object info, signed-URL options) and its write errors: shared by the store, its drivers, the URL signer and the metering, so none of them imports another for a type. */

export interface PutOptions {
  /** A media type such as `image/jpeg`; served back as `Content-Type`. */
  contentType: string;
  /** When known (a Content-Length), the body must be exactly this long. */
  contentLength?: number;
  /** Refuse (BlobTooLargeError) once the body passes this many bytes. */
  maxBytes?: number;
}

export interface PutResult {
  byteSize: number;
  /** Lowercase hex SHA-256 of the bytes stored. */
  sha256: string;
}

/** Inclusive byte offsets, as in `Range: bytes=start-end`, already checked against the size. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobInfo {
  /** The whole object's size, also when a range was asked for. */
  byteSize: number;
  contentType: string;
  /**
   * A strong validator, quoted: `"<sha256 hex>"` on the file driver; on S3 the bucket's own ETag
   * (the SHA-256 is known only after streaming, when S3 metadata can no longer be set).
   */
  etag: string;
  /** Lowercase hex SHA-256 when the store kept it (file driver), else null. */
  sha256: string | null;
}

export interface SignedUrlOptions {
  /** 1 second to 7 days. Expiry is rounded down to a 5-minute step when at least 10 minutes, so that
   *  the same object signed twice in the same step gets the same URL (and browsers cache it). */
  expiresInSeconds: number;
  /** Served as `Content-Disposition` with this file name. */
  filename?: string;
  /** `inline` (default) shows it in the browser; `attachment` downloads it. */
  disposition?: 'inline' | 'attachment';
  /** Served as `Content-Type` instead of the stored type. */
  contentType?: string;
}

export class BlobTooLargeError extends Error {
  readonly code = 'blob_too_large';
  constructor(readonly maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes`);
  }
}

export class BlobLengthMismatchError extends Error {
  readonly code = 'blob_length_mismatch';
  constructor(readonly expected: number, readonly received: number) {
    super(`The body was ${received} bytes, not the ${expected} announced`);
  }
}

/** The longest a signed URL may live (S3's own limit for presigned URLs). */
export const MAX_URL_TTL_SECONDS = 7 * 24 * 3600;
