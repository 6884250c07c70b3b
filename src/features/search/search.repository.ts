import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { SearchType } from './search.schemas.ts';

/**
 * The most recent entries of the workspace (of one kind, with ?types= of one) a search reads
 * first (an index walk that stops here): a word that is common among them finds its candidates there.
 */
export const RECENT_WINDOW = 5_000;
/**
 * How many matches are ranked: the most recent ones. Ranking every match of a common word (half a
 * million rows) cannot be done in milliseconds; see docs/search.md, "Ranking".
 */
export const CANDIDATES = 200;
/**
 * A word with fewer matches than this in the recent window is rare: the word index is asked for all
 * its matches at once. With more, for those of the hours that should hold CANDIDATES of them at the
 * rate the window showed (SPAN_MARGIN times that), then for all of them if those hours held fewer.
 * Asking for a span of hours costs in proportion to the entries of those hours: 20 matches in the
 * window ask for 150,000 entries' hours, a few milliseconds (bench/RESULTS.md, 2026-11-27).
 */
export const RARE_IN_WINDOW = 20;
const SPAN_MARGIN = 3;
/**
 * Fewer matches than this expected in the window from the word statistics (search_share): the walk
 * is skipped. Half of RARE_IN_WINDOW: such a word has under 0.2 % of the entries, all read at once
 * in a few milliseconds, where a word near RARE_IN_WINDOW read whole costs more than the walk and
 * the hours it would have asked for (an estimate may be off by half).
 */
const EXPECTED_RARE = RARE_IN_WINDOW / 2;
/**
 * Up to this many projects (a restricted user's crew, ?project_id=), each project's most recent
 * matches are read from its own entries, and the newest CANDIDATES of them ranked.
 */
export const FEW_PROJECTS = 30;

export interface SearchCriteria {
  workspaceId: string;
  /** What to look for: queryShape's `query` (the text as typed, parsed by search_query: a tsquery, as text). */
  query: string;
  /** Null for every kind. */
  types: readonly SearchType[] | null;
  /** Only these projects (a restricted user's, or ?project_id=); null for the whole workspace, photos without a project included. */
  projectIds: readonly string[] | null;
  /** Also this user's own unfiled photos (a restricted user's: projectIds holds their projects); null for none. */
  unfiledOf?: string | null;
  limit: number;
  /** The share of all entries expected to match (queryShape); 1 when not known. */
  share?: number;
}

export interface SearchHit {
  type: SearchType;
  id: string;
  project_id: string | null;
  title: string;
  snippet: string;
  score: number;
}

/** A row of a page: a hit, or nulls when nothing matched (the page has one row then). */
type SearchRow = { [K in keyof SearchHit]: SearchHit[K] | null } & {
  /** How many matches were ranked. */
  found: string;
  window_newest: Date | null;
  window_oldest: Date | null;
};

/** What the query looks for: nothing at all (only punctuation), nothing an index can find (only exclusions), or words. */
export type QueryShape = 'empty' | 'exclusions_only' | 'words';

/** websearch_to_tsquery in migration 021's configuration (English stems, no stop words, accents folded), on the words as indexed. */
const tsQuery = (q: string) => sql`search_query(${q})`;


export class SearchRepository {
  /**
   * What q looks for (its shape), as the tsquery the searches take (`query`, as text), and the share
   * of all entries the planner expects to match it (search_share, migration 028).
   */
  async queryShape(db: Executor, q: string): Promise<{ shape: QueryShape; share: number; query: string }> {
    const { rows } = await sql<{ nodes: number; tree: string; share: number | null; query: string }>`
      select numnode(${tsQuery(q)}) as nodes, querytree(${tsQuery(q)}) as tree, ${tsQuery(q)}::text as query,
             case when querytree(${tsQuery(q)}) not in ('', 'T') then search_share(${tsQuery(q)}) end as share`.execute(db);
    const { nodes, tree, share, query } = rows[0]!;
    return { shape: nodes === 0 ? 'empty' : tree === 'T' ? 'exclusions_only' : 'words', share: share ?? 1, query };
  }

  /**
   * The best `limit` of the CANDIDATES most recent matches, with snippets. Within a few projects,
   * from each project's own newest entries (they are too thinly spread among the workspace's).
   * A query the word statistics say is rare (fewer than EXPECTED_RARE matches expected in the
   * window) goes to the word index at once. Otherwise first from the RECENT_WINDOW most recent
   * entries, a walk that stops at the CANDIDATES-th match (a common word) — and is all there is in
   * a workspace with fewer entries.
   * When the window holds fewer matches, from the word index (migration 028): a word almost absent
   * from the window (fewer than RARE_IN_WINDOW matches) is rare, and all its matches are read at
   * once; otherwise those of the last hours that should hold CANDIDATES matches at the window's
   * rate, then all of them if those hours held fewer.
   */
  async search(db: Executor, c: SearchCriteria): Promise<SearchHit[]> {
    if (c.projectIds !== null && c.projectIds.length <= FEW_PROJECTS) return hitsOf(await this.page(db, c, { from: 'projects' }));
    // Expected to be rare in the window, from the word statistics: the walk would not find enough.
    if ((c.share ?? 1) * RECENT_WINDOW < EXPECTED_RARE) return hitsOf(await this.page(db, c, { from: 'all' }));
    const recent = await this.page(db, c, { from: 'recent' });
    const { found, window_newest: newest, window_oldest: oldest } = recent[0]!;
    if (Number(found) >= CANDIDATES || oldest === null) return hitsOf(recent);
    if (Number(found) >= RARE_IN_WINDOW) {
      const span = (newest!.getTime() - oldest.getTime()) * SPAN_MARGIN * (CANDIDATES / Number(found));
      const rows = await this.page(db, c, { from: 'hours', sinceHour: Math.floor((newest!.getTime() - span) / HOUR_MS) });
      if (enough(rows)) return hitsOf(rows);
    }
    return hitsOf(await this.page(db, c, { from: 'all' }));
  }

  /**
   * One statement: candidates from each of a few projects' entries, from the recent walk, or from
   * the word index (the matches changed since an hour, or all).
   */
  private async page(db: Executor, c: SearchCriteria, source: Source): Promise<SearchRow[]> {
    const q = sql`${c.query}::tsquery`;
    const filters = filtersOf(c);
    // The recent window: the workspace's newest entries, or of the one kind asked for (a kind's own
    // window finds as many of its matches as an unfiltered search finds of all).
    const oneKind = c.types?.length === 1 ? sql`and type = ${c.types[0]}` : sql``;
    const newest = sql`select updated_at from search_entries where workspace_id = ${c.workspaceId} ${oneKind} order by updated_at desc, id desc`;
    const candidates = source.from === 'projects'
      // Each project's newest matches, walking its recency index (ts_match_vq is @@ in a form no
      // index answers: the word index would read every match of a common word of the workspace).
      ? sql`candidates as materialized (
            select m.id, m.tsv, m.updated_at from (
              select m.id, m.tsv, m.updated_at from unnest(${[...c.projectIds!]}::text[]) p(id)
               cross join lateral (
                 select id, tsv, updated_at from search_entries
                  where project_id = p.id and workspace_id = ${c.workspaceId} and ts_match_vq(tsv, ${q}) ${typesOf(c)}
                  order by updated_at desc, id desc limit ${CANDIDATES}
               ) m
              ${c.unfiledOf ? sql`union all (
                select id, tsv, updated_at from search_entries
                 where project_id is null and unfiled_owner = ${c.unfiledOf} and workspace_id = ${c.workspaceId} and ts_match_vq(tsv, ${q}) ${typesOf(c)}
                 order by updated_at desc, id desc limit ${CANDIDATES})` : sql``}
            ) m
             order by m.updated_at desc, m.id desc limit ${CANDIDATES}
          )`
      : source.from === 'recent'
      ? sql`candidates as materialized (
            select id, tsv, updated_at from (
              select id, type, project_id, unfiled_owner, tsv, updated_at from search_entries
               where workspace_id = ${c.workspaceId} ${oneKind} order by updated_at desc, id desc limit ${RECENT_WINDOW}
            ) recent
             where tsv @@ ${q} ${filters} order by updated_at desc, id desc limit ${CANDIDATES}
          )`
      // offset 0 keeps the matching whole (the word index), never a walk of the recency order.
      : sql`matches as materialized (
            select id, updated_at from search_entries
             where tsv @@ ${q} ${source.from === 'hours' ? sql`and search_hour(updated_at) >= ${source.sinceHour}::integer` : sql``}
               and workspace_id = ${c.workspaceId} ${filters}
            offset 0
          ), candidates as materialized (
            select e.id, e.tsv, e.updated_at
              from (select id from matches order by updated_at desc, id desc limit ${CANDIDATES}) m
              join search_entries e on e.id = m.id
          )`;
    // After a walk of the recent window that found fewer than CANDIDATES: when the window began and
    // ended (null: the workspace has fewer entries, all of them walked). Evaluated only then.
    const window = source.from === 'recent'
      ? sql`case when (select count(*) from candidates) < ${CANDIDATES} then (${newest} limit 1) end as window_newest,
            case when (select count(*) from candidates) < ${CANDIDATES} then (${newest} offset ${RECENT_WINDOW - 1} limit 1) end as window_oldest`
      : sql`null::timestamptz as window_newest, null::timestamptz as window_oldest`;
    // One row at least (ids null when nothing matched), for the count and the window.
    const { rows } = await sql<SearchRow>`
      with ${candidates}, ranked as (
        select id, updated_at, ts_rank(tsv, ${q}, 1) as score from candidates
         order by score desc, updated_at desc, id desc limit ${c.limit}
      )
      select h.type, h.id, h.project_id, h.title, h.score, h.snippet, (select count(*) from candidates) as found, ${window}
        from (values (1)) one left join (
          select e.type, e.id, e.project_id, e.title, round(r.score::numeric, 6)::float8 as score, r.updated_at as at,
                 search_snippet(search_excerpt(case when ts_filter(e.tsv, '{b}') @@ ${q} then e.body else e.title end, ${q}), ${q}) as snippet
            from ranked r join search_entries e on e.id = r.id
        ) h on true
       order by h.score desc, h.at desc, h.id desc`.execute(db);
    return rows;
  }
}

const HOUR_MS = 3_600_000;

type Source = { from: 'projects' | 'recent' | 'all' } | { from: 'hours'; sinceHour: number };

function typesOf(c: SearchCriteria): RawBuilder<unknown> {
  return c.types ? sql`and type = any(${[...c.types]}::text[])` : sql``;
}

/** The filters of the workspace-wide statements: many projects (a restricted user on more than FEW_PROJECTS crews), and their own unfiled photos, are checked on the rows. */
function filtersOf(c: SearchCriteria): RawBuilder<unknown> {
  if (!c.projectIds) return typesOf(c);
  const projects = sql`project_id = any(${[...c.projectIds]}::text[])`;
  return sql`${typesOf(c)} and ${c.unfiledOf ? sql`(${projects} or unfiled_owner = ${c.unfiledOf})` : projects}`;
}

const enough = (rows: SearchRow[]) => Number(rows[0]!.found) >= CANDIDATES;

/** The hits of a page (none when its one row says only how many were found). */
function hitsOf(rows: SearchRow[]): SearchHit[] {
  return rows.filter((row) => row.id !== null).map(({ found: _found, window_newest: _newest, window_oldest: _oldest, ...hit }) => hit as SearchHit);
}
