-- GET /v1/tags?q=… sorted by name, for a word common in the workspace whose matches all lie far
-- into the name order (issue 16; why: docs/decisions.md, "Tags: where in the name order a word
-- can be"; numbers: bench/RESULTS.md, 2026-11-27). At a million tags, `q=ak` walked the names in
-- order for 500,000 of them ("Ashford …" to "Kingsley …") before the first "Lakeview …": 110 ms.
--
-- For each workspace, which first characters of a name (a "bucket" of the name order: every name
-- starting with "l" lies together) hold a name containing each character and each pair of
-- characters, lowercased as the walk compares them. A search walks only the buckets that hold all
-- of its pairs (its one character, for one), each from its start to its end: a bucket that cannot
-- hold a match is skipped without reading a name of it.
--
-- A hint, never the answer: a row says a bucket *may* hold a match (every name is still tested),
-- and rows are only ever added. A renamed or deleted tag leaves its rows behind, which costs at
-- most the walk of a bucket it no longer matches in; what every name of the workspace holds is
-- always there. Added by statement, from the transition table, with `on conflict do nothing`: no
-- row is locked or updated, so concurrent writers of tags never wait on each other here. Every
-- update of a tag runs it, not only a rename: a trigger with a transition table cannot name columns
-- (a colour change finds every row already there).
create table tag_name_grams (
  workspace_id  text not null references workspaces(id) on delete cascade,
  gram          text not null,
  bucket        text not null,
  primary key (workspace_id, gram, bucket)
);

-- The characters and the pairs of neighbouring characters of lower(name), each once.
create function tag_name_grams(name text) returns text[] language sql immutable parallel safe as $$
  select array(
    select distinct substr(k, i, n)
      from (select lower(name) as k) l, generate_series(1, length(k)) i, (values (1), (2)) w(n)
     where i + n - 1 <= length(k))
$$;

-- What a query needs a bucket to hold: its one character, or every pair of neighbouring characters.
create function tag_query_grams(q text) returns text[] language sql immutable parallel safe as $$
  select case when length(lower(q)) = 1 then array[lower(q)]
    else array(select distinct substr(lower(q), i, 2) from generate_series(1, length(lower(q)) - 1) i) end
$$;

-- The first name key past a bucket's names (null after the last code point, U+10FFFF).
create function tag_bucket_end(bucket text) returns text language sql immutable parallel safe as $$
  select case when ascii(bucket) >= 1114111 then null
    when ascii(bucket) + 1 between 55296 and 57343 then chr(57344) -- past the surrogates, which text cannot hold
    else chr(ascii(bucket) + 1) end
$$;

create function record_tag_name_grams() returns trigger language plpgsql as $$
begin
  insert into tag_name_grams (workspace_id, gram, bucket)
  select distinct t.workspace_id, g.gram, left(lower(t.name), 1)
    from changed_tags t, unnest(tag_name_grams(t.name)) g(gram)
  on conflict do nothing;
  return null;
end $$;

create trigger tags_name_grams_inserted after insert on tags referencing new table as changed_tags
  for each statement execute function record_tag_name_grams();
create trigger tags_name_grams_updated after update on tags referencing new table as changed_tags
  for each statement execute function record_tag_name_grams();

insert into tag_name_grams (workspace_id, gram, bucket)
select distinct t.workspace_id, g.gram, left(lower(t.name), 1)
  from tags t, unnest(tag_name_grams(t.name)) g(gram)
on conflict do nothing;
