import pg from 'pg';

/** The type id of text[] (pg's builtins name scalars only). */
export const TEXT_ARRAY = 1009 as Parameters<typeof pg.types.getTypeParser>[0];

/** pg's own parser (postgres-array), taken before database.ts replaces it with the one below. */
const pgParse = pg.types.getTypeParser(TEXT_ARRAY, 'text') as (text: string) => (string | null)[] | null;

/**
 * text[] values as arrays, like pg's own parser (postgres-array, which reads the text a character
 * at a time, each an object) but split at the commas for the form PostgreSQL prints ids and other
 * plain words in: `{a,b,c}`, nothing quoted or escaped, one dimension. Anything else (quotes,
 * backslashes, braces inside, NULL, an empty element) goes to postgres-array, so every array is the
 * same as before: the crews' member_ids on each project row are read with it.
 */
export function parseTextArray(text: string): (string | null)[] | null {
  const n = text.length;
  if (n < 2 || text.charCodeAt(0) !== 123 || text.charCodeAt(n - 1) !== 125) return pgParse(text);
  if (n === 2) return [];
  for (let i = 1; i < n - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c === 123 || c === 125) return pgParse(text); // " \ { }
  }
  const parts = text.slice(1, n - 1).split(',');
  for (const part of parts) if (part === '' || part === 'NULL') return pgParse(text);
  return parts;
}
