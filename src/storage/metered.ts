import crypto from 'node:crypto';
import { BlobLengthMismatchError, BlobTooLargeError, MAX_URL_TTL_SECONDS, type PutOptions, type SignedUrlOptions } from './blob-types.ts';
import { isFilename, isMediaType } from './headers.ts';

/** What passed through `metered`: its size and, once it has ended, its SHA-256. */
export interface Tally {
  bytes: number;
  sha256: string | null;
}

/**
 * Passes `body` through chunk by chunk, counting and hashing it, and fails as soon as it is longer
 * than `maxBytes` or `contentLength`, or when it ends shorter than `contentLength`. Stopping early
 * (an error, or the consumer giving up) ends the iteration of `body`, which destroys a stream.
 */
export async function* metered(
  body: AsyncIterable<Uint8Array | string>,
  tally: Tally,
  limits: { contentLength?: number; maxBytes?: number },
): AsyncGenerator<Buffer> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (buf.length === 0) continue;
    tally.bytes += buf.length;
    if (limits.maxBytes !== undefined && tally.bytes > limits.maxBytes) throw new BlobTooLargeError(limits.maxBytes);
    if (limits.contentLength !== undefined && tally.bytes > limits.contentLength) {
      throw new BlobLengthMismatchError(limits.contentLength, tally.bytes);
    }
    hash.update(buf);
    yield buf;
  }
  if (limits.contentLength !== undefined && tally.bytes !== limits.contentLength) {
    throw new BlobLengthMismatchError(limits.contentLength, tally.bytes);
  }
  tally.sha256 = hash.digest('hex');
}

/** Programming errors in a put's options (the caller validates what clients send). */
export function checkPutOptions(options: PutOptions): void {
  if (!isMediaType(options.contentType)) throw new TypeError(`Not a media type: ${JSON.stringify(options.contentType)}`);
  for (const name of ['contentLength', 'maxBytes'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new TypeError(`${name} must be a non-negative integer`);
  }
}

export function checkSignedUrlOptions(options: SignedUrlOptions): void {
  const ttl = options.expiresInSeconds;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_URL_TTL_SECONDS) {
    throw new TypeError(`expiresInSeconds must be an integer from 1 to ${MAX_URL_TTL_SECONDS}`);
  }
  if (options.filename !== undefined && !isFilename(options.filename)) throw new TypeError('filename must be 1..255 characters without control characters or slashes');
  if (options.contentType !== undefined && !isMediaType(options.contentType)) throw new TypeError(`Not a media type: ${JSON.stringify(options.contentType)}`);
  if (options.disposition !== undefined && options.disposition !== 'inline' && options.disposition !== 'attachment') {
    throw new TypeError('disposition must be inline or attachment');
  }
}

/** Signed URLs are dated at the start of a 5-minute step (when they live 10 minutes or more), so
 *  signing the same object twice within a step gives the same URL, which a browser can cache. */
const SIGNING_STEP_SECONDS = 300;

/** The signing time (unix seconds) of a URL signed at `nowMs` to live `ttl` seconds. */
export function signingTime(nowMs: number, ttl: number): number {
  const now = Math.floor(nowMs / 1000);
  return ttl >= 2 * SIGNING_STEP_SECONDS ? now - (now % SIGNING_STEP_SECONDS) : now;
}
