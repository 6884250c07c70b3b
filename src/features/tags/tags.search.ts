import { sql, type SqlBool } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { lowerKeyContains, substringMatch, substringMatchPairs } from '../../db/substring-match.ts';
import type { TagRow } from './tags.views.ts';

// Every `tags` list sorts by the lowercased name compared byte by byte (collation "C"), then id:
// the same order whatever the database's locale, in the aggregates and in GET /v1/tags alike.
export const nameKey = sql<string>`lower(t.name) collate "C"`;

/** What a tags list asks for (tags.repository.ts lists; searchByName searches by name). */
export interface TagListCriteria {
  workspaceId: string;
  q?: string;
  sort: 'name' | 'created_at';
  /** The last row of the previous page: its id, and its name key when sorting by name. */
  after: { id: string; nameKey: string | null } | null;
  limit: number;
}

/** The bounds of searchByName's tries (a parameter so that tests can send small data down every path). */
export interface NameSearchBounds {
  /** How many names in order the first walk reads: a word common here fills a page from them. */
  walkFirst: number;
  /** The most matches the probe fetches through the trigram index: up to this many, it has them all. */
  probeMax: number;
  /** See NAME_SAMPLE. */
  sample: number;
  /** See NAME_SAMPLE. */
  sampleCommon: number;
  /** See NAME_WALK_MAX. */
  walkMax: number;
  /** See NAME_WALK_ALL_RATE. */
  walkAllRate: number;
}

/**
 * How many of the workspace's newest NAME_SAMPLE tags must match for `q` to count as common here
 * (0.15 %), when the first names in order hold too few: names cluster in name order ("Lakeview …"
 * lie together, 500,000 names in) but hardly in the order they were made, so the newest tags tell
 * how common a word is where the first names cannot. A common word skips the probe, whose trigram
 * bitmap would cost as many entries as the word has matches (80,000: 100 ms) only to learn it.
 */
const NAME_SAMPLE = 2000;
const NAME_SAMPLE_COMMON = 3;

/**
 * The most names in order the long walk reads, from the index alone (tags_by_name_key includes the
 * name): a common word whose matches begin this far on (all "… Roof Replacement …" tags start
 * 28,000 names into the bench's million) is found here rather than by fetching all its matches.
 */
const NAME_WALK_MAX = 50_000;

/**
 * A query matching at least this share of the newest tags is found by walking the names in order
 * to the page's end, however far: the walk tests ~0.2 µs of index per name, the trigram bitmap
 * costs ~1.5 µs per match (~5 µs for one or two characters, each rechecked through search_tripled's
 * regexp), so for such a word the walk costs at worst (its matches all at the end) about what the
 * bitmap would, and mostly far less ("ak": 10 %, its first match past the 500,000th name: the walk
 * 3–5× cheaper; "roof": 8 %, 28,000 names in: 20×).
 */
const NAME_WALK_ALL_RATE = 0.05;

export const NAME_SEARCH_BOUNDS: NameSearchBounds = {
  walkFirst: 2000, probeMax: 1000, sample: NAME_SAMPLE, sampleCommon: NAME_SAMPLE_COMMON, walkMax: NAME_WALK_MAX, walkAllRate: NAME_WALK_ALL_RATE,
};

type Row = TagRow & { name_key: string };

/**
 * A page of a `q` search of the tags sorted by name (lower(name) collate "C", then id), in tries
 * chosen by how common `q` looks here (each stops as soon as it has the page):
 *   1. the next `walkFirst` names in order, tested against `q` in the index alone;
 *   2. when they hold too few matches for a page within NAME_WALK_MAX names at their rate, up to
 *      `probeMax` + 1 matches through the trigram index, in no order: when there are no more,
 *      they are all the matches (a rare word, digits, no match), sorted;
 *   3. else (a word common here, whose matches may lie further on) the next names in order, as many
 *      as a page needs at the first names' rate, at most NAME_WALK_MAX;
 *   4. else all the matches through the trigram index, sorted; or, for a word common in the
 *      newest tags (NAME_WALK_ALL_RATE), after step 2 the walk in order to the page's end, through
 *      the buckets of the name order that may hold a match only (walkBuckets: "ak" lies only
 *      among the names from "Lakeview" on).
 * Every try answers with at most `limit + 1` rows in the list's order, and a try that answers at
 * all answers with the page: which one does changes the cost, never the rows.
 */
export async function searchByName(db: Executor, c: TagListCriteria, q: string, bounds = NAME_SEARCH_BOUNDS): Promise<Row[]> {
  const want = c.limit + 1;
  const walked = await walk(db, c, q, bounds.walkFirst);
  if (walked.length === want) return walked;
  // Matches at the rate of the first names fill a page within `window` names (half again as many to spare).
  const window = walked.length === 0 ? Infinity : Math.ceil((bounds.walkFirst * want * 1.5) / walked.length);
  if (window > bounds.walkMax) {
    const sample = await sampled(db, c, q, bounds.sample);
    if (sample < bounds.sampleCommon) {
      const probed = await probe(db, c, q, bounds.probeMax);
      if (probed !== null) return probed;
    }
    if (sample >= bounds.sample * bounds.walkAllRate) return walkBuckets(db, c, q);
  }
  const further = await walk(db, c, q, Math.min(window, bounds.walkMax));
  if (further.length === want) return further;
  return indexed(db, c, q);
}

/** The workspace's tags after the cursor. */
function after(db: Executor, c: TagListCriteria) {
  let rows = db.selectFrom('tags as t').where('t.workspace_id', '=', c.workspaceId);
  if (c.after) rows = rows.where(sql<SqlBool>`(${nameKey}, t.id) > (${c.after.nameKey}, ${c.after.id})`);
  return rows;
}

/** Where a walk may go in name order: the name keys from `from` (inclusive) to `to` (exclusive; null: to the end). */
interface KeyRange { from: string; to: string | null }

/**
 * The matches among the next `names` names in order (null: all of them; within `range` when given),
 * at most `want`: an index-only scan of tags_by_name_key that stops at the last match it needs, then
 * those rows by id.
 */
function walk(db: Executor, c: TagListCriteria, q: string, names: number | null, range?: KeyRange, want = c.limit + 1): Promise<Row[]> {
  let inOrder = after(db, c).select(['t.id', nameKey.as('k')]).orderBy(nameKey).orderBy('t.id');
  if (range) inOrder = inOrder.where(nameKey, '>=', range.from);
  if (range?.to != null) inOrder = inOrder.where(nameKey, '<', range.to);
  // Without a bound the test runs in the index scan itself: half the cost of a subquery's rows.
  const matches = names === null
    ? inOrder.where(lowerKeyContains(nameKey, q)).limit(want)
    : db.selectFrom(inOrder.limit(names).as('w')).select(['w.id', 'w.k']).where(lowerKeyContains(sql<string>`w.k`, q)).limit(want);
  return db.selectFrom(matches.as('m')).innerJoin('tags as t', 't.id', 'm.id').selectAll('t')
    .select(sql<string>`lower(t.name)`.as('name_key')).orderBy('m.k').orderBy('m.id').execute();
}

/**
 * All the names in order after the cursor, as far as the page needs, but only in the buckets that
 * may hold a match: the first characters of the names among which migration 029 has seen every
 * character pair of `q` (its character, for one). Each such bucket is walked from its start (or
 * the cursor) to its end; the others, however many names they hold, are not read. The same rows as
 * walking every name: a name can match only where all of `q`'s pairs were seen.
 */
async function walkBuckets(db: Executor, c: TagListCriteria, q: string): Promise<Row[]> {
  const from = c.after?.nameKey ?? '';
  const { rows: buckets } = await sql<{ bucket: string; to: string | null }>`
    select bucket, tag_bucket_end(bucket) as to from tag_name_grams
     where workspace_id = ${c.workspaceId} and gram = any(tag_query_grams(${q})) and bucket collate "C" >= left(${from}, 1)
     group by bucket having count(*) = cardinality(tag_query_grams(${q}))
     order by bucket collate "C"`.execute(db);
  const found: Row[] = [];
  const cursorBucket = Array.from(from)[0] ?? '';
  for (const { bucket, to } of buckets) {
    // A bucket past the cursor's is after it whole: without the cursor's row comparison, which the
    // scan would start from (it cannot tell that the bucket's own bound begins further on).
    const within = bucket === cursorBucket ? c : { ...c, after: null };
    found.push(...await walk(db, within, q, null, { from: bucket, to }, c.limit + 1 - found.length));
    if (found.length > c.limit) break;
  }
  return found;
}

/** How many of the workspace's NAME_SAMPLE newest tags match (the newest-first index, in the table's order). */
async function sampled(db: Executor, c: TagListCriteria, q: string, size: number): Promise<number> {
  const newest = db.selectFrom('tags as t').select('t.name').where('t.workspace_id', '=', c.workspaceId)
    .orderBy('t.id', 'desc').limit(size);
  const row = await db.selectFrom(newest.as('t')).select(sql<string>`count(*)`.as('n'))
    .where(substringMatch(sql<string>`t.name`, q, 'row')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * All the matches after the cursor, sorted, when there are at most `probeMax`; else null.
 * The probe stops at `probeMax` + 1 matches, in whatever order the plan finds them (the
 * bitmap of the trigram index; or, for a word the planner expects to be common, the table in
 * physical order, where such a word's matches come early). For one or two characters the plain
 * ILIKE beside the tripled form is the same test, cheaper row by row: a scan runs it first, and
 * the costly one on its matches only.
 */
async function probe(db: Executor, c: TagListCriteria, q: string, max: number): Promise<Row[] | null> {
  let found = after(db, c).selectAll('t').select([sql<string>`lower(t.name)`.as('name_key'), nameKey.as('k')])
    .where(substringMatchPairs(sql<string>`t.name`, q));
  if (Array.from(q).length < 3) found = found.where(substringMatch(sql<string>`t.name`, q, 'row'));
  found = found.limit(max + 1);
  const rows = await db.selectFrom(found.as('f')).selectAll('f').select(sql<number>`count(*) over ()`.as('found'))
    .orderBy('f.k').orderBy('f.id').limit(c.limit + 1).execute();
  if (rows.length > 0 && Number(rows[0]!.found) > max) return null;
  return rows.map(({ k: _k, found: _found, ...row }) => row);
}

/** All the matches after the cursor through the trigram index, sorted (offset 0 keeps the subquery whole: never a walk in order). */
function indexed(db: Executor, c: TagListCriteria, q: string): Promise<Row[]> {
  const matches = after(db, c).selectAll('t').select([sql<string>`lower(t.name)`.as('name_key'), nameKey.as('k')])
    .where(substringMatchPairs(sql<string>`t.name`, q)).offset(0);
  return db.selectFrom(matches.as('f')).selectAll('f').orderBy('f.k').orderBy('f.id').limit(c.limit + 1).execute()
    .then((rows) => rows.map(({ k: _k, ...row }) => row));
}
