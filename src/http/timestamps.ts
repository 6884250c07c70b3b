import { validationFailed } from './errors.ts';
import type { CursorValue } from './pagination.ts';

/** RFC 3339 as the schema's `date-time` format admits it (lower-case `t`/`z`, a space separator), or a 400 naming `path`. */
export function parseRfc3339(value: string, path: string): Date {
  const date = new Date(value.toUpperCase().replace(' ', 'T'));
  if (Number.isNaN(date.getTime())) validationFailed([{ path, message: 'must be an RFC 3339 date-time' }]);
  return date;
}

/** A cursor's timestamp must be exactly one this API wrote, so a forged one is a 400, not a database error. */
export const isIsoTimestamp = (v: CursorValue) => typeof v === 'string' && !Number.isNaN(Date.parse(v)) && new Date(v).toISOString() === v;
