-- Search that stays fast at a million rows (issue 16): trigram indexes for the `q` filters.
-- pg_trgm is a contrib extension shipped with PostgreSQL (and the embedded one); it is "trusted",
-- so a database owner without superuser rights may create it too.
create extension if not exists pg_trgm;

-- A trigram needs three characters. For queries of one or two (src/db/substring-match.ts), the text
-- with every character written three times ("oak" → "oooaaakkk"): its trigrams are the text's
-- single characters ("ooo") and pairs ("ooa", "oaa"), and it contains "ak" tripled ("aaakkk")
-- exactly where the text contains "ak".
create or replace function search_tripled(t text) returns text
  language sql immutable parallel safe
  as $$ select regexp_replace(t, '(.)', '\1\1\1', 'g') $$;

-- GET /v1/projects?q=: the name and the six address parts as one text, one part per line.
-- A match of `q` (which cannot span a line break unless `q` holds one: the query then checks each
-- part as well) in this text is a match in one of the parts, so one index answers for all seven.
create or replace function project_search_text(name text, street_address_1 text, street_address_2 text, city text,
                                    state text, postal_code text, country text) returns text
  language sql immutable parallel safe
  as $$ select name || E'\n' || coalesce(street_address_1, '') || E'\n' || coalesce(street_address_2, '') || E'\n'
            || coalesce(city, '') || E'\n' || coalesce(state, '') || E'\n' || coalesce(postal_code, '') || E'\n'
            || coalesce(country, '') $$;

create index if not exists projects_search on projects using gin
  (project_search_text(name, street_address_1, street_address_2, city, state, postal_code, country) gin_trgm_ops);
-- The planner chooses between this index (a rare word: fetch its few rows, sort them) and walking
-- the list's order index (a common word: the first page is among the newest rows) by how many rows
-- it expects to match; a finer histogram of the text makes that guess good down to ~0.1 %.
alter index projects_search alter column 1 set statistics 1000;
create index if not exists projects_search_short on projects using gin
  (search_tripled(project_search_text(name, street_address_1, street_address_2, city, state, postal_code, country)) gin_trgm_ops);
alter index projects_search_short alter column 1 set statistics 1000;

-- GET /v1/tags?q=: the name.
create index if not exists tags_name_search on tags using gin (name gin_trgm_ops);
create index if not exists tags_name_search_short on tags using gin (search_tripled(name) gin_trgm_ops);
-- GET /v1/tags?sort=name walks this instead of sorting every tag of the workspace.
create index if not exists tags_by_name_key on tags (workspace_id, (lower(name) collate "C"), id);
