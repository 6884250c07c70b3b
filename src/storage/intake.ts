import type { Readable } from 'node:stream';
import { ApiError } from '../http/errors.ts';
import { BlobLengthMismatchError, BlobTooLargeError, type BlobStore } from './blob-store.ts';

/**
 * Taking an upload in: the first bytes are read ahead and judged (content sniffing, and whatever
 * else the caller checks in them, such as an image's declared pixel count) before anything is
 * stored; then those bytes and the rest of the stream go to the blob store, which hashes while
 * it writes. Memory holds the head (at most `headBytes`) and one chunk, whatever the size.
 */
export interface IntakeOptions<T extends string> {
  /** Objects are stored under a fresh key of this kind (`photos`, `videos`, `documents`). */
  kind: string;
  /** Larger bodies are refused with 413 `payload_too_large` (and nothing is kept). */
  maxBytes: number;
  /** How many bytes to read ahead before judging (fewer when the whole upload is shorter). */
  headBytes: number;
  /** The content type the head shows, or null (→ 415 `unsupported_media_type`, with `accepted` in the message). */
  sniff(head: Buffer): T | null;
  /** What the endpoint accepts, for the 415 message: e.g. `JPEG, PNG, HEIC or WebP`. */
  accepted: string;
  /** Further checks of the head; throw an ApiError to refuse. `complete`: the head is the whole upload. */
  inspect?(head: Buffer, contentType: T, complete: boolean): Promise<void> | void;
}

export interface Intake<T extends string> {
  key: string;
  contentType: T;
  byteSize: number;
  sha256: string;
  /** The bytes read ahead (the start of the object). */
  head: Buffer;
}

const toBuffer = (chunk: unknown): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);

export const tooLarge = (maxBytes: number): ApiError =>
  new ApiError(413, 'payload_too_large', 'Payload too large', `The file is larger than the limit of ${formatBytes(maxBytes)}.`);

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GB`;
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2} MB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KB`;
  return `${n} bytes`;
}

/**
 * Reads ahead, judges, and streams the upload into a new object. Throws an ApiError (413, 415,
 * or the caller's own from `inspect`) with nothing stored; a failing source stream rethrows its
 * own error, also with nothing stored.
 */
export async function intake<T extends string>(blobs: BlobStore, body: Readable | AsyncIterable<unknown>, options: IntakeOptions<T>): Promise<Intake<T>> {
  const iterator = (body as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < options.headBytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = toBuffer(next.value);
    chunks.push(chunk);
    length += chunk.length;
    if (length > options.maxBytes) {
      await drain(iterator);
      throw tooLarge(options.maxBytes);
    }
  }
  const head = Buffer.concat(chunks);
  try {
    if (head.length === 0) throw new ApiError(400, 'empty_file', 'Empty file', 'The uploaded file is empty.');
    const contentType = options.sniff(head);
    if (contentType === null) {
      throw new ApiError(415, 'unsupported_media_type', 'Unsupported media type',
        `The file's content is not ${options.accepted} (the type is read from the bytes, not the file name or the declared type).`);
    }
    await options.inspect?.(head, contentType, done);

    async function* whole(): AsyncGenerator<Buffer> {
      yield head;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield toBuffer(next.value);
      }
    }
    const key = blobs.newKey(options.kind);
    try {
      const stored = await blobs.put(key, whole(), { contentType, maxBytes: options.maxBytes });
      return { key, contentType, byteSize: stored.byteSize, sha256: stored.sha256, head };
    } catch (err) {
      if (err instanceof BlobTooLargeError || isFileSizeLimit(err)) throw tooLarge(options.maxBytes);
      if (err instanceof BlobLengthMismatchError) throw new ApiError(400, 'bad_request', 'Bad request', err.message);
      throw err;
    }
  } catch (err) {
    if (!done) await drain(iterator);
    throw err;
  }
}

/** @fastify/multipart's own "file too large" (when its fileSize limit is what stops the stream). */
const isFileSizeLimit = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE';

/**
 * Reads and drops the rest of a refused upload, so the client gets its answer rather than a reset
 * connection mid-send; the stream is cut instead if it errors.
 */
async function drain(iterator: AsyncIterator<unknown>): Promise<void> {
  try {
    for (;;) if ((await iterator.next()).done) return;
  } catch {
    // The source failed (client gone, size limit): nothing left to read.
  }
}
