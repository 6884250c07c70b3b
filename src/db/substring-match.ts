import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

/** `text` with LIKE's wildcards and escape character taken literally. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * `text` contains `q`, ignoring case (ILIKE), in the form a trigram index of 017_search.sql can
 * answer. A trigram needs three characters, so a query of one or two is matched in
 * `search_tripled(text)` instead, where every character stands three times ("oak" → "oooaaakkk"):
 * its trigrams are the text's single characters ("ooo") and pairs ("oak" holds "ooa", "oaa"), and it
 * contains `q` tripled exactly where the text contains `q`. Both forms need their own index on the
 * same expression as `text`. `row`: the plain form, cheaper to test row by row when no index is used.
 */
export function substringMatch(text: RawBuilder<string>, q: string, form: 'index' | 'row' = 'index'): Expression<SqlBool> {
  const chars = Array.from(q);
  if (chars.length >= 3 || form === 'row') return sql<SqlBool>`${text} ilike ${`%${escapeLike(q)}%`}`;
  return sql<SqlBool>`search_tripled(${text}) ilike ${`%${chars.map((c) => escapeLike(c).repeat(3)).join('')}%`}`;
}

/** How many rows in a list's order a search reads before it turns to the trigram index. */
export const SEARCH_WINDOW = 5000;

/**
 * A page of a `q` search in two tries that each stay cheap whatever the word. `walk`: the next
 * SEARCH_WINDOW rows in the list's order (an index walk that stops there), filtered; a word common
 * here fills the page from them. Otherwise the word is rare here, and `indexed` fetches all its
 * matches through the trigram index and sorts them. As one statement the choice was the planner's,
 * whose estimate counts every workspace's rows (and cannot see where in the order the matches
 * are): a word frequent elsewhere made it walk a whole workspace for a word it hardly holds
 * (seconds at 1M rows). Both return `limit + 1` rows at most, in the list's order.
 */
export async function searchPage<Row>(limit: number, walk: () => Promise<Row[]>, indexed: () => Promise<Row[]>): Promise<Row[]> {
  const walked = await walk();
  return walked.length > limit ? walked : indexed();
}
