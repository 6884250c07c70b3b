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

/**
 * `key` (a text already lowercased as `lower(text)`, e.g. an index's sort key) contains `q`,
 * ignoring case: the same rows as `text ilike '%q%'`. In a database whose encoding has multi-byte
 * characters (UTF8) ILIKE is that: it lowercases the text and the pattern with lower() and compares
 * them as LIKE does; in a single-byte one it lowercases byte by byte, as lower() does there. Unlike
 * ILIKE it lowercases nothing per row, and it reads `key` from an index alone (an index-only walk).
 */
export function lowerKeyContains(key: RawBuilder<string>, q: string): Expression<SqlBool> {
  return sql<SqlBool>`${key} like lower(${`%${escapeLike(q)}%`})`;
}

/**
 * substringMatch's index form with a two-character query written as the pair's middle
 * ("ak" → "aakk") rather than the whole tripled pair ("aaakkk"): any four characters of a tripled
 * text span the ends of two neighbouring triples, so it contains "aakk" exactly where the text
 * contains "ak" (the same rows), and its trigrams are the pair's only ("aak", "akk"), not also "aaa"
 * and "kkk", whose posting lists hold nearly every row that has an a or a k.
 */
export function substringMatchPairs(text: RawBuilder<string>, q: string): Expression<SqlBool> {
  const chars = Array.from(q);
  if (chars.length !== 2) return substringMatch(text, q);
  const [a, b] = chars.map(escapeLike) as [string, string];
  return sql<SqlBool>`search_tripled(${text}) ilike ${`%${a}${a}${b}${b}%`}`;
}

/** How many rows in a list's order a search reads first. */
export const SEARCH_WINDOW = 2000;

/** The most rows in a list's order a search reads before it turns to the trigram index. */
export const SEARCH_WINDOW_MAX = 10_000;

/**
 * A page of a `q` search in tries that each stay cheap whatever the word. `walk(n)`: the matches
 * among the next `n` rows in the list's order (an index walk that stops there), at most `limit + 1`;
 * a word common here fills the page from the first SEARCH_WINDOW rows. When it does not, their
 * matches tell how common it is: none, and the word is rare here (under ~1 in 2,000 rows), so
 * `indexed` fetches all its matches through the trigram index and sorts them; some, and a window
 * expected to hold a page (with half again as many rows to spare) is walked, when it is at most
 * SEARCH_WINDOW_MAX rows, before the index. As one statement the choice was the planner's, whose
 * estimate counts every workspace's rows (and cannot see where in the order the matches are): a
 * word frequent elsewhere made it walk a whole workspace for a word it hardly holds (seconds at 1M
 * rows). Every try returns `limit + 1` rows at most, in the list's order, and a full page from any
 * of them is the page: which try answers changes the cost, never the rows.
 */
export async function searchPage<Row>(limit: number, walk: (rows: number) => Promise<Row[]>, indexed: () => Promise<Row[]>): Promise<Row[]> {
  const walked = await walk(SEARCH_WINDOW);
  if (walked.length > limit) return walked;
  if (walked.length === 0) return indexed();
  const window = Math.ceil((SEARCH_WINDOW * (limit + 1) * 1.5) / walked.length);
  if (window <= SEARCH_WINDOW_MAX) {
    const more = await walk(window);
    if (more.length > limit) return more;
  }
  return indexed();
}

/**
 * searchPage's tries over rows that each cost more than in a list's order (a restricted user's own
 * projects, fetched by id), read by a walk that stops where its page fills: `walk(rows, skip)`, the
 * matches among the `rows` rows after the first `skip`, at most `limit + 1`, read only as far as the
 * row that fills the page. The first `probe` rows tell how common the word is: none, and `indexed`
 * answers; else the walk goes on after them through a window expected to hold the rest of the page
 * with half again as many rows to spare (when it is at most SEARCH_WINDOW_MAX rows), and a page still
 * short goes to `indexed`. No row is read twice, and a common word costs the rows up to its page's end.
 */
export async function searchStream<Row>(limit: number, walk: (rows: number, skip: number) => Promise<Row[]>, indexed: () => Promise<Row[]>, probe: number): Promise<Row[]> {
  const probed = await walk(probe, 0);
  if (probed.length > limit) return probed;
  if (probed.length === 0) return indexed();
  const window = Math.ceil((probe * (limit + 1 - probed.length) * 1.5) / probed.length);
  if (window > SEARCH_WINDOW_MAX) return indexed();
  const rows = probed.concat(await walk(window, probe));
  return rows.length > limit ? rows.slice(0, limit + 1) : indexed();
}
