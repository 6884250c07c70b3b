import crypto from 'node:crypto';

/**
 * Blob keys are made here and nowhere else: `<kind>/<yyyy>/<mm>/<name>`, where `name` is 26
 * characters of base32 from 128 random bits, optionally followed by `.<variant>` for a derived
 * object (`photos/2026/11/k5…q.thumbnail`). Nothing a client sends ever becomes part of a key,
 * and every driver refuses any string that is not of this exact shape before it touches a disk
 * or a bucket, so `..`, absolute paths, backslashes and encoded tricks cannot reach either.
 */
const KIND = /^[a-z][a-z0-9-]{0,30}$/;
const KEY = /^([a-z][a-z0-9-]{0,30})\/(\d{4})\/(0[1-9]|1[0-2])\/([a-z2-7]{26})(?:\.([a-z][a-z0-9-]{0,30}))?$/;

export class InvalidBlobKeyError extends Error {
  readonly code = 'invalid_blob_key';
  constructor(readonly key: string) {
    super(`Not a blob key: ${JSON.stringify(key.length > 100 ? `${key.slice(0, 100)}…` : key)}`);
  }
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 16 random bytes as 26 lowercase RFC 4648 base32 characters (no padding). */
function randomName(): string {
  const bytes = crypto.randomBytes(16);
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out + BASE32[(value << (5 - bits)) & 31];
}

/** A fresh key for a new object of `kind` (e.g. `photos`), dated by `now` (UTC). */
export function newBlobKey(kind: string, now: Date = new Date()): string {
  if (!KIND.test(kind)) throw new Error(`Blob kind must match ${KIND} (got ${JSON.stringify(kind)})`);
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `${kind}/${now.getUTCFullYear()}/${month}/${randomName()}`;
}

/**
 * The key of a derived object (`large`, `thumbnail`, `poster`, …) of an original: it sits next
 * to the original and shares its name, so deleting the original with its variants finds it even
 * if the row that recorded it was never written.
 */
export function variantKey(key: string, variant: string): string {
  const parsed = KEY.exec(key);
  if (!parsed) throw new InvalidBlobKeyError(key);
  if (parsed[5] !== undefined) throw new Error(`${key} is already a variant; variants are made from originals`);
  if (!KIND.test(variant)) throw new Error(`Variant name must match ${KIND} (got ${JSON.stringify(variant)})`);
  return `${key}.${variant}`;
}

export function isBlobKey(key: unknown): key is string {
  return typeof key === 'string' && KEY.test(key);
}

export function assertBlobKey(key: unknown): asserts key is string {
  if (!isBlobKey(key)) throw new InvalidBlobKeyError(String(key));
}

/** The original an object belongs to (itself for an original). */
export function originalKeyOf(key: string): string {
  assertBlobKey(key);
  const dot = key.lastIndexOf('.');
  return dot === -1 ? key : key.slice(0, dot);
}
