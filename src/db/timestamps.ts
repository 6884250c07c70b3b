import pg from 'pg';

/** pg's own parser (postgres-date), taken before database.ts replaces it with the one below. */
const pgParse = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;
const parsePostgresDate = (text: string): Date => pgParse(text);

/**
 * timestamptz values as Date, like pg's own parser (postgres-date) but without its three regular
 * expressions for the one form PostgreSQL prints in practice: `YYYY-MM-DD HH:MM:SS[.ffffff]±HH`
 * (with `:MM` or `:MM:SS` on the offset in zones that need them). Anything else (years
 * before 1000 or after 9999, BC, infinity) goes to postgres-date. The arithmetic is postgres-date's
 * own (Date.UTC with `1000 * parseFloat(fraction)` ms, then the offset), so the Date is the same to the
 * millisecond: views print it with toISOString, and the bytes of every response stay as they were.
 */
export function parseTimestamptz(text: string): Date {
  const n = text.length;
  // The fixed part: 19 characters of date and time, then an optional fraction, then the offset.
  if (n < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(0) === 48) return parsePostgresDate(text);
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === 46) {
    let j = i + 1;
    while (j < n && isDigit(text.charCodeAt(j))) j++;
    ms = 1000 * parseFloat(text.slice(i, j));
    i = j;
  }
  const sign = text.charCodeAt(i);
  if ((sign !== 43 && sign !== 45) || !(n === i + 3 || n === i + 6 || n === i + 9)) return parsePostgresDate(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const offsetH = digits(text, i + 1, 2);
  const offsetM = n > i + 3 ? digits(text, i + 4, 2) : 0;
  const offsetS = n > i + 6 ? digits(text, i + 7, 2) : 0;
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 || offsetH < 0 || offsetM < 0 || offsetS < 0) {
    return parsePostgresDate(text);
  }
  const offset = (offsetH * 3600 + offsetM * 60 + offsetS) * 1000 * (sign === 45 ? -1 : 1);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset);
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** The decimal number in text[at, at + count), or -1 when a character there is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let k = at; k < at + count; k++) {
    const c = text.charCodeAt(k);
    if (!isDigit(c)) return -1;
    value = value * 10 + (c - 48);
  }
  return value;
}
