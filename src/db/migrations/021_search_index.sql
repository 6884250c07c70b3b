-- One search box across everything (issue 17): GET /v1/search. Why it is built this way:
-- docs/decisions.md "### Search everything"; how it behaves: docs/search.md.
--
-- search_entries holds one row per searchable object (a project, a photo or video with a caption,
-- a task, a comment, a document), with its text as a tsvector, kept in step by triggers on the
-- source tables in the writing transaction: cascades (a project deleted takes its content with
-- it), renames and edits included, whatever code path made them.

-- unaccent is a "trusted" extension (PostgreSQL 13+): a database owner without superuser rights
-- may create it. Where even that is refused, search still works, only not accent-insensitively
-- (a warning says so; docs/search.md, "Accents").
do $$
begin
  create extension if not exists unaccent;
exception when insufficient_privilege then
  raise warning 'jobsite: could not create the unaccent extension (%); search will not fold accents', sqlerrm;
end $$;
-- btree_gin (trusted too) lets one GIN index hold the workspace, the project and the words.
create extension if not exists btree_gin;

-- English stems ("cracks", "cracked" → "crack") without the English stop-word list, so that
-- "will", "can" or "up" stay searchable (names, trade words); accents folded first ("Café" → "cafe").
create text search dictionary jobsite_stem (template = snowball, language = english);
create text search configuration jobsite_search (copy = simple);
do $$
begin
  if exists (select 1 from pg_ts_dict where dictname = 'unaccent') then
    alter text search configuration jobsite_search
      alter mapping for asciiword, asciihword, hword_asciipart, word, hword, hword_part with unaccent, jobsite_stem;
  else
    alter text search configuration jobsite_search
      alter mapping for asciiword, asciihword, hword_asciipart, word, hword, hword_part with jobsite_stem;
  end if;
end $$;

create table search_entries (
  -- no foreign keys: rows are written by triggers while their sources are being deleted
  workspace_id  text not null,
  -- project, photo, video, task, comment, document
  type          text not null,
  id            text primary key,
  -- the project it belongs to (itself for a project); null for a photo waiting for one
  project_id    text,
  -- what a result shows as its title; body: the rest of the searchable text (snippets come from it)
  title         text not null,
  body          text not null default '',
  tsv           tsvector not null,
  -- the source's last change: candidates for ranking are the most recent matches
  updated_at    timestamptz(3) not null,
  -- updated_at in 30-day periods since 1970, so the word index can be asked for recent matches only
  period        integer not null
);
-- The most recent entries first: a common word's candidates are found by walking this.
create index search_entries_recent on search_entries (workspace_id, updated_at desc, id desc);
-- A rarer word's matches, within a workspace and, for ?types=, kinds, recent periods first: GIN
-- intersects the lists, so only the matches are read from the table (a word in 4 % of a million
-- rows is 40,000 reads: the periods keep that to the last months' share). Projects are not in it:
-- searches within a few projects walk each one's entries (below), and GIN would be asked for
-- every match of a common word in each.
create index search_entries_words on search_entries using gin (workspace_id, type, period, tsv);
-- A project's entries, most recent first: a search within a few projects walks each one's.
create index search_entries_by_project on search_entries (project_id, updated_at desc, id desc);

-- Extracted text of PDFs and text files (the extract_document_text job), kept apart from
-- documents so that extraction moves neither a document's updated_at nor its sync position.
create table document_texts (
  document_id   text primary key references documents(id) on delete cascade,
  -- extracted: text found; empty: none (a scan without a text layer); failed: unreadable (error says why)
  status        text not null check (status in ('extracted', 'empty', 'failed')),
  text          text not null default '',
  page_count    integer,
  -- the text was cut at the limit (docs/search.md, "Documents")
  truncated     boolean not null default false,
  error         text,
  extracted_at  timestamptz(3) not null default now()
);

-- The text as the parser should see it, for indexing and for queries alike. Dots, slashes, @,
-- colons and angle brackets separate words (and "<b>" is never a tag to skip) ("permit.pdf", "sam@acme.example" would otherwise be single "file" and
-- "email" tokens, not found by "permit" or "acme"), and so do punctuation and symbols beyond ASCII
-- (« » — … “ ” and emoji), which the parser takes for letters under a C locale (the embedded cluster's).
create function search_words(t text) returns text language sql immutable parallel safe as $$
  select regexp_replace(coalesce(t, ''), '[./@:<>\\\u00a0-\u00bf\u2000-\u206f\u2190-\u2bff\u3000-\u303f\U0001F000-\U0001FAFF]+', ' ', 'g')
$$;

create function search_vector(title text, body text) returns tsvector language sql immutable parallel safe as $$
  select setweight(to_tsvector('jobsite_search', search_words(title)), 'A')
      || setweight(to_tsvector('jobsite_search', search_words(body)), 'B')
$$;

create function search_query(q text) returns tsquery language sql immutable parallel safe as $$
  select websearch_to_tsquery('jobsite_search', search_words(q))
$$;

-- A snippet of `t` around the matches of `q`, as plain text with the matches between « and »
-- (those of the text itself become ‹ and ›). The separators of search_words are set apart by a
-- control character (which the parser takes for a space) so that the parser sees the same words,
-- and the control characters are removed afterwards: the text reads as it was written, markup
-- included (it is plain text: show it as text).
create function search_snippet(t text, q tsquery) returns text language sql immutable parallel safe as $$
  select replace(ts_headline('jobsite_search',
           regexp_replace(translate(t, E'«»\x01', '‹›'), '([./@:<>\\\u00a0-\u00bf\u2000-\u206f\u2190-\u2bff\u3000-\u303f\U0001F000-\U0001FAFF])', E'\x01\\1\x01', 'g'),
           q, 'StartSel=«, StopSel=», MaxWords=35, MinWords=15, ShortWord=2'), E'\x01', '')
$$;

-- The part of a long text (a document's, up to 200,000 characters) a snippet is made from: 3,000
-- characters around the first place where one of the query's words (its stems) appears, or the
-- start. ts_headline parses all the text it is given (60 ms for 190,000 characters).
create function search_excerpt(t text, q tsquery) returns text language sql immutable parallel safe as $$
  select case when length(t) <= 4000 then t else substr(t, greatest(1, coalesce((
    select min(nullif(strpos(lower(t), m[1]), 0)) from regexp_matches(q::text, $re$'((?:[^']|'')+)'$re$, 'g') m
  ), 1) - 1000), 3000) end
$$;

-- A comment shows its first line as its title; its words count once, as body.
create function search_comment_title(body text) returns text language sql immutable parallel safe as $$
  select left(btrim(split_part(btrim(body, E' \t\r\n'), E'\n', 1)), 120)
$$;

create function search_period(t timestamptz) returns integer language sql immutable parallel safe as $$
  select floor(extract(epoch from t) / 2592000)::integer
$$;

create function search_put(ws text, kind text, rid text, pid text, title text, body text, vector tsvector, changed timestamptz) returns void language sql as $$
  insert into search_entries (workspace_id, type, id, project_id, title, body, tsv, updated_at, period)
  values (ws, kind, rid, pid, title, body, vector, changed, search_period(changed))
  on conflict (id) do update set workspace_id = excluded.workspace_id, project_id = excluded.project_id, title = excluded.title,
    body = excluded.body, tsv = excluded.tsv, updated_at = excluded.updated_at, period = excluded.period
$$;

create function search_project_address(p projects) returns text language sql immutable as $$
  select concat_ws(E'\n', nullif(p.description, ''), concat_ws(', ', p.street_address_1, p.street_address_2, p.city, p.state, p.postal_code, p.country))
$$;

create function search_projects() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    delete from search_entries where id = old.id;
    return old;
  end if;
  perform search_put(new.workspace_id, 'project', new.id, new.id, new.name, search_project_address(new),
    search_vector(new.name, search_project_address(new)), new.updated_at);
  return new;
end $$;
create trigger projects_search after insert or delete or update of name, description, street_address_1, street_address_2, city,
  state, postal_code, country, updated_at on projects for each row execute function search_projects();

-- Photos and videos are found by their caption; one without a caption has no entry.
create function search_media() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' or nullif(btrim(new.caption), '') is null then
    delete from search_entries where id = case when tg_op = 'DELETE' then old.id else new.id end;
    return null;
  end if;
  perform search_put(new.workspace_id, tg_argv[0], new.id, new.project_id, new.caption, '', search_vector(new.caption, ''), new.updated_at);
  return null;
end $$;
create trigger photos_search after insert or delete or update of caption, project_id, updated_at on photos
  for each row execute function search_media('photo');
create trigger videos_search after insert or delete or update of caption, project_id, updated_at on videos
  for each row execute function search_media('video');

create function search_tasks() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    delete from search_entries where id = old.id;
    return null;
  end if;
  perform search_put(new.workspace_id, 'task', new.id, new.project_id, new.title, coalesce(new.description, ''),
    search_vector(new.title, new.description), new.updated_at);
  return null;
end $$;
create trigger tasks_search after insert or delete or update of title, description, project_id, updated_at on tasks
  for each row execute function search_tasks();

create function search_comments() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    delete from search_entries where id = old.id;
    return null;
  end if;
  perform search_put(new.workspace_id, 'comment', new.id, new.project_id, search_comment_title(new.body), new.body,
    search_vector('', new.body), new.updated_at);
  return null;
end $$;
create trigger comments_search after insert or delete or update of body, project_id, updated_at on comments
  for each row execute function search_comments();

-- A document is found by its name and, once extracted, its text.
create function search_documents() returns trigger language plpgsql as $$
declare
  content text;
begin
  if tg_op = 'DELETE' then
    delete from search_entries where id = old.id;
    return null;
  end if;
  content := coalesce((select t.text from document_texts t where t.document_id = new.id), '');
  perform search_put(new.workspace_id, 'document', new.id, new.project_id, new.name, content, search_vector(new.name, content), new.updated_at);
  return null;
end $$;
create trigger documents_search after insert or delete or update of name, project_id, updated_at on documents
  for each row execute function search_documents();

create function search_document_texts() returns trigger language plpgsql as $$
begin
  update search_entries e set body = new.text, tsv = search_vector(e.title, new.text) where e.id = new.document_id;
  return null;
end $$;
create trigger document_texts_search after insert or update of text on document_texts
  for each row execute function search_document_texts();

-- What exists already. Documents' text follows from their extraction jobs, which the periodic
-- requeue task queues for every PDF and text file without extracted text (documents.text.ts).
insert into search_entries (workspace_id, type, id, project_id, title, body, tsv, updated_at, period)
select workspace_id, type, id, project_id, title, body, tsv, updated_at, search_period(updated_at) from (
select workspace_id, 'project' as type, id, id as project_id, name as title, search_project_address(p) as body, search_vector(name, search_project_address(p)) as tsv, updated_at from projects p
union all
select workspace_id, 'photo', id, project_id, caption, '', search_vector(caption, ''), updated_at from photos where nullif(btrim(caption), '') is not null
union all
select workspace_id, 'video', id, project_id, caption, '', search_vector(caption, ''), updated_at from videos where nullif(btrim(caption), '') is not null
union all
select workspace_id, 'task', id, project_id, title, coalesce(description, ''), search_vector(title, description), updated_at from tasks
union all
select workspace_id, 'comment', id, project_id, search_comment_title(body), body, search_vector('', body), updated_at from comments
union all
select workspace_id, 'document', id, project_id, name, '', search_vector(name, ''), updated_at from documents
) existing;

create index document_texts_missing on documents (created_at) where content_type in ('application/pdf', 'text/plain', 'text/csv');
