import crypto from 'node:crypto';
import zlib from 'node:zlib';

/**
 * API key secrets: `jsk_` + 32 random base62 characters (~190 bits) + a 6-character base62
 * CRC32 of them, like GitHub's tokens: a typo or a truncated paste is told apart from an unknown
 * key without touching the database, and secret scanners can recognise the format.
 * Only the SHA-256 of the whole secret is stored.
 */
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'jsk_';
const SHAPE = /^jsk_[0-9A-Za-z]{38}$/;

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]; // 248 = 4 × 62: no modulo bias
    }
  }
  return out;
}

const checksum = (body: string) => base62(zlib.crc32(body), 6);

export function generateApiKeySecret(): string {
  const body = randomBase62(32);
  return `${PREFIX}${body}${checksum(body)}`;
}

export function isWellFormedApiKey(secret: string): boolean {
  if (!SHAPE.test(secret)) return false;
  const body = secret.slice(PREFIX.length, PREFIX.length + 32);
  // The checksum is computed from the visible body, so comparing it in constant time would hide nothing.
  return checksum(body) === secret.slice(PREFIX.length + 32);
}

export const hashApiKeySecret = (secret: string): Buffer => crypto.createHash('sha256').update(secret).digest();

/** What is shown in lists so people can tell keys apart: `jsk_AbCd…`. */
export const apiKeySecretPrefix = (secret: string): string => secret.slice(0, PREFIX.length + 4);
