import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

/**
 * Passwords hashed with scrypt (node:crypto, memory-hard): N = 2^15, r = 8, p = 1 (32 MiB, tens
 * of milliseconds), a 16-byte random salt per password, a 32-byte hash. Stored as
 * `scrypt$N$r$p$salt$hash` (base64), so the parameters can be raised later without breaking the
 * hashes already stored.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const maxmem = (N: number, r: number, p: number) => 128 * N * r * p + 16 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const { N, r, p } = PARAMS;
  const hash = await scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { N, r, p, maxmem: maxmem(N, r, p) });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** True when `password` is the one `stored` was made from; compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64'), expected.length, { N, r: R, p: P, maxmem: maxmem(N, R, P) });
  return crypto.timingSafeEqual(actual, expected);
}

/** A hash of no one's password: an unknown e-mail costs the same scrypt as a known one. */
let dummy: Promise<string> | null = null;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummy);
}
