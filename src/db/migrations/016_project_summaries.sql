-- Performance (issue 16): a project's crew ids, tag summaries and cover thumbnail key live on its
-- row, kept in step by triggers in the same transaction as the change that moves them, so that
-- reading a project (or a page of 50) is one row each instead of three correlated sub-selects,
-- which cost PostgreSQL about four times the read itself (bench/RESULTS.md).
--
-- The values are exactly what the sub-selects computed: crew ids sorted by id; tags as
-- {id, name, color} sorted by lowercased name byte by byte (collation "C"), then id.

alter table projects
  add column member_ids text[] not null default '{}',
  add column tags jsonb not null default '[]',
  add column cover_thumbnail_key text;

create function project_member_ids_of(project text) returns text[] language sql stable as $$
  select coalesce(array_agg(m.user_id order by m.user_id), '{}') from project_members m where m.project_id = project
$$;

create function project_tags_of(project text) returns jsonb language sql stable as $$
  select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'color', t.color) order by lower(t.name) collate "C", t.id), '[]')
  from project_tags l join tags t on t.id = l.tag_id where l.project_id = project
$$;

update projects p set member_ids = project_member_ids_of(p.id), tags = project_tags_of(p.id),
  cover_thumbnail_key = (select variants->'thumbnail'->>'key' from photos where id = p.cover_photo_id);

-- Recomputes the summaries of the given projects. The rows are locked first, in id order, and
-- only then read again: each statement of a (volatile) function sees what committed before it
-- started, so two transactions changing one crew at once both end up in the summary.
create function refresh_project_summaries(ids text[]) returns void language plpgsql as $$
begin
  perform 1 from projects where id = any(ids) order by id for update;
  update projects set member_ids = project_member_ids_of(id), tags = project_tags_of(id) where id = any(ids);
end
$$;

create function project_links_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform refresh_project_summaries(array(select distinct project_id from new_rows));
  elsif tg_op = 'DELETE' then
    perform refresh_project_summaries(array(select distinct project_id from old_rows));
  else
    perform refresh_project_summaries(array(select project_id from new_rows union select project_id from old_rows));
  end if;
  return null;
end
$$;

create trigger project_members_inserted after insert on project_members referencing new table as new_rows
  for each statement execute function project_links_changed();
create trigger project_members_deleted after delete on project_members referencing old table as old_rows
  for each statement execute function project_links_changed();
create trigger project_members_updated after update on project_members referencing new table as new_rows old table as old_rows
  for each statement execute function project_links_changed();
create trigger project_tags_inserted after insert on project_tags referencing new table as new_rows
  for each statement execute function project_links_changed();
create trigger project_tags_deleted after delete on project_tags referencing old table as old_rows
  for each statement execute function project_links_changed();
create trigger project_tags_updated after update on project_tags referencing new table as new_rows old table as old_rows
  for each statement execute function project_links_changed();

-- A renamed or recoloured tag: every project carrying it.
create function tags_changed() returns trigger language plpgsql as $$
begin
  perform refresh_project_summaries(array(select distinct l.project_id from project_tags l join new_rows n on n.id = l.tag_id));
  return null;
end
$$;

create trigger tags_updated after update on tags referencing new table as new_rows
  for each statement execute function tags_changed();

-- The cover's thumbnail key: set with the cover, and again when the photo's variants change (it
-- is processed, or re-processed). A deleted cover photo sets cover_photo_id null (the foreign key),
-- which clears the key through the first trigger.
-- The photo is read FOR SHARE: a processing that is changing its variants right now finishes first.
create function project_cover_changed() returns trigger language plpgsql as $$
begin
  new.cover_thumbnail_key := (select variants->'thumbnail'->>'key' from photos where id = new.cover_photo_id for share);
  return new;
end
$$;

create trigger project_cover_set before insert or update of cover_photo_id on projects
  for each row execute function project_cover_changed();

create index projects_by_cover on projects (cover_photo_id) where cover_photo_id is not null;

create function cover_variants_changed() returns trigger language plpgsql as $$
begin
  update projects set cover_thumbnail_key = new.variants->'thumbnail'->>'key' where cover_photo_id = new.id;
  return null;
end
$$;

create trigger photo_variants_changed after update of variants on photos
  for each row when (old.variants is distinct from new.variants) execute function cover_variants_changed();
