-- Photos that file themselves (issue 17): POST /v1/photos uploads a photo without a project; the
-- processing job files it under the project whose geofence holds its GPS position, else the
-- nearest project within JOBSITE_AUTO_ASSIGN_METERS, else it waits unfiled (project_id null)
-- until someone moves it. docs/photos.md "Photos that file themselves"; decisions in
-- docs/decisions.md "### Photos that file themselves".

alter table photos alter column project_id drop not null;
-- GET /v1/photos?project_id=none: the inbox of unfiled photos, newest first.
create index photos_unfiled on photos (workspace_id, id desc) where project_id is null;

-- A project's geofence as the API took it: a GeoJSON Polygon (one ring, [lon, lat] positions) or
-- {"radius_m": n} around the project's coordinates. Beside it, what finding the fence of a point
-- needs without reading every fence: its bounding box (WGS 84 degrees; a radius box that would
-- cross the antimeridian or a pole spans all longitudes) and its area in square metres (the
-- smallest fence holding a point wins). Written by the application with the fence, and again
-- when the coordinates under a radius move.
alter table projects
  add column geofence jsonb,
  add column geofence_min_lon double precision,
  add column geofence_min_lat double precision,
  add column geofence_max_lon double precision,
  add column geofence_max_lat double precision,
  add column geofence_area_m2 double precision,
  add constraint projects_geofence_box check (
    (geofence is null) = (geofence_min_lon is null) and (geofence is null) = (geofence_min_lat is null)
    and (geofence is null) = (geofence_max_lon is null) and (geofence is null) = (geofence_max_lat is null)
    and (geofence is null) = (geofence_area_m2 is null));

-- Fences holding a point: `box(...) @> point(lon, lat)` walks this index, whatever the number of projects.
create index projects_geofence_box on projects using gist (box(point(geofence_min_lon, geofence_min_lat), point(geofence_max_lon, geofence_max_lat)))
  where geofence is not null;
-- The nearest project without a fence: `point(lon, lat) <@ box(...)` of the search radius, then the exact distance.
create index projects_by_position on projects using gist (point(lon, lat))
  where lat is not null and geofence is null;

-- Sync (020): an unfiled photo belongs to no project, and only its uploader and non-restricted
-- users see it. Its sync rows carry the scope `unfiled:<uploader id>` where a project id would be,
-- which the stream treats as visible to that uploader (and, like every scope, to non-restricted users).
create function photo_sync_scope(project text, creator text) returns text language sql immutable as $$
  select coalesce(project, 'unfiled:' || creator)
$$;

-- Whether restricted user `uid` sees content of `scope` (a project id, or an unfiled scope).
create function restricted_sees_scope(uid text, scope text) returns boolean language sql stable as $$
  select scope = 'unfiled:' || uid
      or exists (select 1 from projects p where p.id = scope and p.created_by = uid)
      or exists (select 1 from project_members m where m.project_id = scope and m.user_id = uid)
$$;

create function sync_photos() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform sync_record(old.workspace_id, 'photo', old.id, photo_sync_scope(old.project_id, old.creator_id), 'delete');
    return old;
  end if;
  perform sync_record(new.workspace_id, 'photo', new.id, photo_sync_scope(new.project_id, new.creator_id), 'upsert');
  return new;
end $$;
drop trigger photos_sync on photos;
create trigger photos_sync after insert or update or delete on photos for each row execute function sync_photos();

create or replace function sync_photo_tags() returns trigger language plpgsql as $$
declare
  pid text := case when tg_op = 'DELETE' then old.photo_id else new.photo_id end;
begin
  perform sync_touch(p.workspace_id, 'photo', p.id, photo_sync_scope(p.project_id, p.creator_id)) from photos p where p.id = pid;
  return null;
end $$;

create or replace function sync_tags() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform sync_record(old.workspace_id, 'tag', old.id, null, 'delete');
    return old;
  end if;
  perform sync_record(new.workspace_id, 'tag', new.id, null, 'upsert');
  if tg_op = 'UPDATE' and (old.name, old.color) is distinct from (new.name, new.color) then
    perform sync_touch(p.workspace_id, 'project', p.id, p.id) from project_tags pt join projects p on p.id = pt.project_id where pt.tag_id = new.id;
    perform sync_touch(p.workspace_id, 'photo', p.id, photo_sync_scope(p.project_id, p.creator_id)) from photo_tags pt join photos p on p.id = pt.photo_id where pt.tag_id = new.id;
  end if;
  return new;
end $$;

-- A photo filed or moved (project_id changed):
-- - it leaves the old project's cover, tasks and share links (each shows only its project's photos);
-- - its comments follow it to the new project;
-- - a restricted user who saw it before and does not now gets a delete of the photo and its
--   comments of their own (a sync row with their user_id; 020 keys rows by user), since the
--   upsert of the photo, now in a project out of their sight, never reaches them.
create function photo_moved() returns trigger language plpgsql as $$
declare
  before_scope text := photo_sync_scope(old.project_id, old.creator_id);
  after_scope text := photo_sync_scope(new.project_id, new.creator_id);
begin
  if old.project_id is not null then
    -- updated_at moves (at least 1 ms, as the application's writes do), so ETags change with the content.
    update projects set cover_photo_id = null, updated_at = greatest(now(), updated_at + interval '1 millisecond')
     where id = old.project_id and cover_photo_id = new.id;
    with unlinked as (
      delete from task_photos tp using tasks t
       where tp.task_id = t.id and tp.photo_id = new.id and t.project_id is distinct from new.project_id
      returning tp.task_id
    )
    update tasks set updated_at = greatest(now(), updated_at + interval '1 millisecond') where id in (select task_id from unlinked);
    delete from share_link_photos sp using share_links s
     where sp.share_link_id = s.id and sp.photo_id = new.id and s.project_id is distinct from new.project_id;
  end if;
  if new.project_id is not null then
    update comments set project_id = new.project_id where photo_id = new.id and project_id <> new.project_id;
  end if;
  insert into sync_changes (workspace_id, type, id, user_id, project_id, op, seq, changed_at)
  select new.workspace_id, x.type, x.id, u.id, before_scope, 'delete', null, now()
    from users u
   cross join lateral (select 'photo' as type, new.id as id union all select 'comment', c.id from comments c where c.photo_id = new.id) x
   where u.workspace_id = new.workspace_id and u.role = 'restricted'
     and u.id in (select old.creator_id
                  union all select p.created_by from projects p where p.id = old.project_id
                  union all select m.user_id from project_members m where m.project_id = old.project_id)
     and restricted_sees_scope(u.id, before_scope) and not restricted_sees_scope(u.id, after_scope)
  on conflict (workspace_id, type, id, user_id)
  do update set op = 'delete', project_id = excluded.project_id, seq = null, changed_at = excluded.changed_at;
  return null;
end $$;
create trigger photos_moved after update of project_id on photos
  for each row when (old.project_id is distinct from new.project_id) execute function photo_moved();
