-- Performance (issue 16), as 016 did for projects: a photo's tag summaries and a task's photo ids
-- live on its row, kept in step by triggers in the same transaction as the change that moves
-- them, so that a page of 50 photos or tasks is 50 rows instead of 50 rows and 50 correlated
-- sub-selects (which cost PostgreSQL more than the page itself; bench/RESULTS.md).
--
-- The values are exactly what the sub-selects computed: tags as {id, name, color} sorted by
-- lowercased name byte by byte (collation "C"), then id; photo ids in the task's order
-- (position, then id).

alter table photos add column tags jsonb not null default '[]';
alter table tasks add column photo_ids text[] not null default '{}';

create function photo_tags_of(photo text) returns jsonb language sql stable as $$
  select coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'color', t.color) order by lower(t.name) collate "C", t.id), '[]')
  from photo_tags l join tags t on t.id = l.tag_id where l.photo_id = photo
$$;

create function task_photo_ids_of(task text) returns text[] language sql stable as $$
  select coalesce(array_agg(tp.photo_id order by tp.position, tp.photo_id), '{}') from task_photos tp where tp.task_id = task
$$;

-- The backfill changes no photo or task as clients see it: the sync log (020) need not hear of it.
alter table photos disable trigger photos_sync;
alter table tasks disable trigger tasks_sync;
update photos p set tags = photo_tags_of(p.id) where exists (select 1 from photo_tags l where l.photo_id = p.id);
update tasks t set photo_ids = task_photo_ids_of(t.id) where exists (select 1 from task_photos tp where tp.task_id = t.id);
alter table photos enable trigger photos_sync;
alter table tasks enable trigger tasks_sync;

-- Recompute the summaries of the given rows. The rows are locked first, in id order, and only
-- then read again (a new statement sees what committed meanwhile), as refresh_project_summaries.
create function refresh_photo_tags(ids text[]) returns void language plpgsql as $$
begin
  perform 1 from photos where id = any(ids) order by id for update;
  update photos set tags = photo_tags_of(id) where id = any(ids);
end
$$;

create function refresh_task_photo_ids(ids text[]) returns void language plpgsql as $$
begin
  perform 1 from tasks where id = any(ids) order by id for update;
  update tasks set photo_ids = task_photo_ids_of(id) where id = any(ids);
end
$$;

create function photo_tags_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform refresh_photo_tags(array(select distinct photo_id from new_rows));
  elsif tg_op = 'DELETE' then
    perform refresh_photo_tags(array(select distinct photo_id from old_rows));
  else
    perform refresh_photo_tags(array(select photo_id from new_rows union select photo_id from old_rows));
  end if;
  return null;
end
$$;

create trigger photo_tags_inserted after insert on photo_tags referencing new table as new_rows
  for each statement execute function photo_tags_changed();
create trigger photo_tags_deleted after delete on photo_tags referencing old table as old_rows
  for each statement execute function photo_tags_changed();
create trigger photo_tags_updated after update on photo_tags referencing new table as new_rows old table as old_rows
  for each statement execute function photo_tags_changed();

create function task_photos_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform refresh_task_photo_ids(array(select distinct task_id from new_rows));
  elsif tg_op = 'DELETE' then
    perform refresh_task_photo_ids(array(select distinct task_id from old_rows));
  else
    perform refresh_task_photo_ids(array(select task_id from new_rows union select task_id from old_rows));
  end if;
  return null;
end
$$;

create trigger task_photos_inserted after insert on task_photos referencing new table as new_rows
  for each statement execute function task_photos_changed();
create trigger task_photos_deleted after delete on task_photos referencing old table as old_rows
  for each statement execute function task_photos_changed();
create trigger task_photos_updated after update on task_photos referencing new table as new_rows old table as old_rows
  for each statement execute function task_photos_changed();

-- A renamed or recoloured tag: every photo carrying it (016's tags_changed does the projects).
create function tags_changed_for_photos() returns trigger language plpgsql as $$
begin
  perform refresh_photo_tags(array(select distinct l.photo_id from photo_tags l join new_rows n on n.id = l.tag_id));
  return null;
end
$$;

create trigger tags_updated_for_photos after update on tags referencing new table as new_rows
  for each statement execute function tags_changed_for_photos();
