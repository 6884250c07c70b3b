import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/** `text` with LIKE's wildcards and escape character taken literally. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `text` contains `q`, ignoring case (ILIKE), in the form a trigram index of 017_search.sql can
 * answer. A trigram needs three characters, so a query of one or two is matched in
 * `search_tripled(text)` instead, where every character stands three times ("oak" → "oooaaakkk"):
 * its trigrams are the text's single characters ("ooo") and pairs ("oak" holds "ooa", "oaa"), and it
 * contains `q` tripled exactly where the text contains `q`. Both forms need their own index on the
 * same expression as `text`.
 */
export function substringMatch(text: RawBuilder<string>, q: string): Expression<SqlBool> {
  const chars = Array.from(q);
  if (chars.length >= 3) return sql<SqlBool>`${text} ilike ${`%${escapeLike(q)}%`}`;
  return sql<SqlBool>`search_tripled(${text}) ilike ${`%${chars.map((c) => escapeLike(c).repeat(3)).join('')}%`}`;
}
