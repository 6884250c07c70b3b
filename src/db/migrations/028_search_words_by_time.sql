-- The word index of GET /v1/search, rebuilt for speed at a million entries (issue 17; measured in
-- bench/RESULTS.md, 2026-11-27; why: docs/decisions.md, "Search: the word index by time").
--
-- 021 indexed (workspace_id, type, period, tsv). Two things made it slow:
--   - the workspace key's posting list holds every entry of the workspace (a million): GIN steps
--     through it to intersect it with a word's, which cost more than the word lists themselves
--     (a two-word query: 50 ms with it, 11–20 ms without);
--   - 30-day periods were too coarse a cut for "the recent matches": a word in 4 % of the entries
--     has a thousand matches in one period where 200 were wanted, each read from the table.
-- Now: the hour of the change (hours since 1970), so a search can ask for the matches of the last
-- hours or days its first, recent-window walk calls for (a span of hours is read as one key per
-- hour: at a million entries over three years, 44 days' matches of a word took 5 ms, where one key
-- per changed row — the timestamp itself — took 13–39 ms); the kind (for ?types=); the words. The
-- workspace is checked on the rows the index returns (a word common in another workspace and rare
-- in this one costs those rows: docs/search.md, "Speed").
create function search_hour(t timestamptz) returns integer language sql immutable parallel safe as $$
  select floor(extract(epoch from t) / 3600)::integer
$$;
drop index if exists search_entries_words;
create index search_entries_words on search_entries using gin (type, search_hour(updated_at), tsv);
-- The most recent entries of one kind: a search with ?types= of one walks its kind's recent window,
-- where the newest 5,000 of all kinds held too few of that kind (a video among 20 entries).
create index search_entries_recent_by_type on search_entries (workspace_id, type, updated_at desc, id desc);

-- Whose unfiled photo an entry is (its uploader; null for everything else): a restricted user finds
-- their own photos waiting for a project, as GET /v1/photos shows them to them (docs/photos.md).
alter table search_entries add column unfiled_owner text;
drop function search_put(text, text, text, text, text, text, tsvector, timestamptz);
create function search_put(ws text, kind text, rid text, pid text, title text, body text, vector tsvector, changed timestamptz,
                           owner text default null) returns void language sql as $$
  insert into search_entries (workspace_id, type, id, project_id, title, body, tsv, updated_at, unfiled_owner)
  values (ws, kind, rid, pid, title, body, vector, changed, case when pid is null then owner end)
  on conflict (id) do update set workspace_id = excluded.workspace_id, project_id = excluded.project_id, title = excluded.title,
    body = excluded.body, tsv = excluded.tsv, updated_at = excluded.updated_at, unfiled_owner = excluded.unfiled_owner
$$;
create or replace function search_media() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or nullif(btrim(new.caption), '') is null then
    delete from search_entries where id = case when tg_op = 'DELETE' then old.id else new.id end;
    return null;
  end if;
  perform search_put(new.workspace_id, tg_argv[0], new.id, new.project_id, new.caption, '', search_vector(new.caption, ''), new.updated_at, new.creator_id);
  return null;
end $$;
update search_entries e set unfiled_owner = p.creator_id from photos p where e.id = p.id and p.project_id is null;
alter table search_entries drop column period;
drop function search_period(timestamptz);

-- The share of all entries (0..1) the planner expects to match q, from the statistics ANALYZE keeps
-- of the words (the same estimate it plans with). A search expecting a rare word skips the walk of
-- the recent window, which could not find enough of it (search.repository.ts). Estimated on the
-- whole table: a word rare overall is cheap to read in full, whatever its share in one workspace.
create function search_share(q tsquery) returns float8 language plpgsql volatile as $$
declare
  plan json;
begin
  execute format('explain (format json) select 1 from search_entries where tsv @@ %L::tsquery', q) into plan;
  return (plan->0->'Plan'->>'Plan Rows')::float8
    / greatest((select reltuples from pg_class where oid = 'search_entries'::regclass), 1);
end $$;
