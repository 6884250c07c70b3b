import type { ByteRange } from './blob-store.ts';

export type RangeRequest =
  | { kind: 'whole' }
  | { kind: 'range'; range: ByteRange }
  | { kind: 'unsatisfiable' };

/**
 * Reads a `Range` header against an object of `size` bytes (RFC 9110 §14). One range is served;
 * a header that is malformed, in another unit or asks for several ranges is ignored (the whole
 * object is sent, as the RFC allows). `bytes=500-` and `bytes=-500` (the last 500) are understood.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' };
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? Infinity : Number(m[2]);
  if (last < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end: Math.min(last, size - 1) } };
}
