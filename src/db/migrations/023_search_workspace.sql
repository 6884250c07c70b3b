-- Search per workspace (issue 16): the trigram indexes of 017_search.sql, with the workspace first.
-- A GIN index on the text alone holds every workspace's rows: a word rare here but common in another
-- workspace ("Quillfeather": 12 rows here, 4,000 there) sent thousands of the other workspace's rows
-- through the bitmap heap scan, each fetched and rechecked, to be dropped by `workspace_id = …`.
-- With workspace_id as the index's first column the bitmap holds this workspace's rows only.
-- btree_gin gives GIN the operator class for a plain `=` on text; like pg_trgm it is a contrib
-- extension shipped with PostgreSQL (and the embedded one) and "trusted" (PostgreSQL 13+), so the
-- database owner may create it without superuser rights.
create extension if not exists btree_gin;

-- The builds read the whole table and hold a lock that blocks writes to it (not reads) until the
-- migration commits: a migration runs in a transaction (src/db/migrate.ts), where `create index
-- concurrently` cannot. See docs/operations.md, "Migrations that build indexes".
create index if not exists projects_search_in_workspace on projects using gin (workspace_id,
  project_search_text(name, street_address_1, street_address_2, city, state, postal_code, country) gin_trgm_ops);
alter index projects_search_in_workspace alter column 2 set statistics 1000;
create index if not exists projects_search_short_in_workspace on projects using gin (workspace_id,
  search_tripled(project_search_text(name, street_address_1, street_address_2, city, state, postal_code, country)) gin_trgm_ops);
alter index projects_search_short_in_workspace alter column 2 set statistics 1000;
-- Every search names its workspace, so the indexes without it only cost writes now.
drop index if exists projects_search;
drop index if exists projects_search_short;

create index if not exists tags_name_search_in_workspace on tags using gin (workspace_id, name gin_trgm_ops);
create index if not exists tags_name_search_short_in_workspace on tags using gin (workspace_id, search_tripled(name) gin_trgm_ops);
drop index if exists tags_name_search;
drop index if exists tags_name_search_short;
