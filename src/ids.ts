import crypto from 'node:crypto';
import { monotonicFactory } from 'ulidx';

/** Type prefixes of every public id (DESIGN.md §5). */
export const ID_PREFIXES = {
  workspace: 'wsp',
  user: 'usr',
  apiKey: 'key',
  session: 'ses',
  project: 'prj',
  photo: 'pho',
  video: 'vid',
  task: 'tsk',
  document: 'doc',
  report: 'rep',
  export: 'exp',
  tag: 'tag',
  comment: 'cmt',
  webhook: 'whk',
  event: 'evt',
  delivery: 'dlv',
  notification: 'ntf',
  request: 'req',
  developerApplication: 'app',
  shareLink: 'shl',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * ulidx's default PRNG makes one getRandomValues call per character; this one serves bytes from
 * a pooled crypto buffer. byte / 256 × 32 maps each byte onto exactly 8 of the 32 characters, so
 * there is no bias.
 */
const pool = Buffer.alloc(4096);
let offset = pool.length;
function pooledRandom(): number {
  if (offset >= pool.length) {
    crypto.randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]! / 256;
}

const ulid = monotonicFactory(pooledRandom);

/** A prefixed, time-sortable id: `prj_01jd…` (lowercase ULID: 48-bit ms time + 80 random bits). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid().toLowerCase()}`;
}

const ID_SHAPE = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` looks like an id of `kind`; a wrong-looking id is simply not found. */
export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(`${ID_PREFIXES[kind]}_`) && ID_SHAPE.test(value);
}
