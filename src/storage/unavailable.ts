import { StorageUnavailableError } from './blob-store.ts';

/**
 * Which blob store errors mean "the store is not there right now": the S3 endpoint refused,
 * reset or timed out the connection, or answered 5xx / throttled (after the SDK's own retries).
 * Those answer 503 storage_unavailable and are retried by jobs; a missing object, a denied
 * request or a bad key are not outages.
 */

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET',
]);

/** S3 error names of a store that is overloaded or failing (not our request's fault). */
const SERVICE_NAMES = new Set([
  'TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'ServiceUnavailable', 'SlowDown',
  'InternalError', 'ThrottlingException', 'NetworkingError',
]);

/** Whether `err` is the store being unreachable (the store tags its outages: raw socket errors look the same for the database). */
export function isStorageUnavailable(err: unknown): boolean {
  return err instanceof StorageUnavailableError;
}

/** The S3 client's errors that mean an outage (what S3BlobStore turns into StorageUnavailableError). */
export function isStoreOutage(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  if (err instanceof StorageUnavailableError) return true;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; errors?: unknown; cause?: unknown; syscall?: unknown;
    $metadata?: { httpStatusCode?: number } };
  // Our socket to the store (with its syscall), not an upload the client cut short ("aborted").
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code) && typeof e.syscall === 'string') return true;
  if (typeof e.code === 'string' && e.code.startsWith('UND_ERR_')) return NETWORK_CODES.has(e.code);
  if (typeof e.name === 'string' && SERVICE_NAMES.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status >= 500 || status === 429)) return true;
  if (typeof e.message === 'string' && /^socket hang up$/i.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isStoreOutage(inner, depth + 1))) return true;
  return e.cause !== undefined && isStoreOutage(e.cause, depth + 1);
}
