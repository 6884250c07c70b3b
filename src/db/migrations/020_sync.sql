-- Offline delta sync (issue 17): GET /v1/sync. Why it has its own log rather than reading the
-- event log: docs/decisions.md "### Sync".
--
-- sync_changes holds one row per resource (the latest change to it: upsert or delete) and one
-- row per (restricted user, project) whose visibility changed (grant or revoke). Triggers on the
-- resource tables write it, so every change is recorded in the writing transaction, including
-- the ones no service call makes by itself: cascades (a project deleted takes its photos, tasks,
-- comments… with it), join tables that are part of a resource's view (tags, crew, task photos),
-- and a tag renamed inside every photo and project that carries it.
--
-- `seq` is null when the row is written and is stamped later, after the transaction committed,
-- from the workspace's counter in sync_heads (see sync.repository.ts): so seq is the order in
-- which changes became visible, and a transaction that commits late gets a later seq instead of
-- an earlier one that a client may already have read past.
create table sync_changes (
  -- no foreign key: rows are written by triggers while a workspace's rows are being deleted
  workspace_id  text not null,
  -- project, photo, video, task, comment, document, report, tag, user; or access
  type          text not null,
  -- the resource's id; for access rows the project's id
  id            text not null,
  -- access rows: whose visibility changed; '' otherwise (part of the key)
  user_id       text not null default '',
  -- the project the resource belongs to (itself for a project); null for tags and users
  project_id    text,
  op            text not null check (op in ('upsert', 'delete', 'grant', 'revoke')),
  seq           bigint,
  changed_at    timestamptz(3) not null default now(),
  primary key (workspace_id, type, id, user_id)
);
create index sync_changes_by_seq on sync_changes (workspace_id, seq) where seq is not null;
create index sync_changes_unstamped on sync_changes (workspace_id) where seq is null;
create index sync_changes_by_project on sync_changes (workspace_id, project_id, seq);
create index sync_changes_access on sync_changes (workspace_id, user_id, seq) where type = 'access';
create index sync_changes_expiry on sync_changes (changed_at) where op in ('delete', 'revoke', 'grant');

-- Per workspace: the last seq stamped, and the horizon: the highest seq of a tombstone or access
-- row the retention cleanup deleted (a cursor below it may have missed one: 410).
create table sync_heads (
  workspace_id  text primary key references workspaces(id) on delete cascade,
  last_seq      bigint not null default 0,
  horizon       bigint not null default 0
);

create function sync_record(ws text, kind text, rid text, pid text, change text) returns void language sql as $$
  insert into sync_changes (workspace_id, type, id, project_id, op, seq, changed_at)
  values (ws, kind, rid, pid, change, null, now())
  on conflict (workspace_id, type, id, user_id)
  do update set op = excluded.op, project_id = excluded.project_id, seq = null, changed_at = excluded.changed_at
$$;

-- A part of a resource's view changed (a tag, a crew member, a task's photo). Callers select the
-- resource from its table, so one being deleted (a cascade) is left alone: its tombstone stands.
create function sync_touch(ws text, kind text, rid text, pid text) returns void language sql as $$
  select sync_record(ws, kind, rid, pid, 'upsert')
$$;

-- A restricted user gained or lost sight of a project: the next sync answers with its content.
create function sync_access(ws text, uid text, pid text, change text) returns void language sql as $$
  insert into sync_changes (workspace_id, type, id, user_id, project_id, op, seq, changed_at)
  values (ws, 'access', pid, uid, pid, change, null, now())
  on conflict (workspace_id, type, id, user_id)
  do update set op = excluded.op, seq = null, changed_at = excluded.changed_at
$$;

-- Resources that belong to a project: photos, videos, tasks, comments, documents, reports.
create function sync_project_content() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform sync_record(old.workspace_id, tg_argv[0], old.id, old.project_id, 'delete');
    return old;
  end if;
  perform sync_record(new.workspace_id, tg_argv[0], new.id, new.project_id, 'upsert');
  return new;
end $$;

create trigger photos_sync after insert or update or delete on photos for each row execute function sync_project_content('photo');
create trigger videos_sync after insert or update or delete on videos for each row execute function sync_project_content('video');
create trigger tasks_sync after insert or update or delete on tasks for each row execute function sync_project_content('task');
create trigger comments_sync after insert or update or delete on comments for each row execute function sync_project_content('comment');
create trigger documents_sync after insert or update or delete on documents for each row execute function sync_project_content('document');
create trigger reports_sync after insert or update or delete on reports for each row execute function sync_project_content('report');

-- A project's view carries its cover photo's thumbnail: a change to the cover changes the project.
create function sync_cover_photo() returns trigger language plpgsql as $$
begin
  perform sync_touch(p.workspace_id, 'project', p.id, p.id) from projects p where p.cover_photo_id = new.id;
  return new;
end $$;
create trigger photos_sync_cover after update of variants on photos for each row execute function sync_cover_photo();

create function sync_projects() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform sync_record(old.workspace_id, 'project', old.id, old.id, 'delete');
    -- Members lose sight through their crew rows (sync_project_members); a restricted creator here.
    perform sync_access(old.workspace_id, u.id, old.id, 'revoke') from users u where u.id = old.created_by and u.role = 'restricted';
    return old;
  end if;
  perform sync_record(new.workspace_id, 'project', new.id, new.id, 'upsert');
  return new;
end $$;
create trigger projects_sync after insert or update or delete on projects for each row execute function sync_projects();

create function sync_project_members() returns trigger language plpgsql as $$
declare
  m project_members;
begin
  m := case when tg_op = 'DELETE' then old else new end;
  perform sync_touch(p.workspace_id, 'project', p.id, p.id) from projects p where p.id = m.project_id;
  -- Only restricted users see by membership; the project's creator keeps seeing it off the crew.
  perform sync_access(m.workspace_id, u.id, m.project_id, case when tg_op = 'DELETE' then 'revoke' else 'grant' end)
     from users u
    where u.id = m.user_id and u.role = 'restricted'
      and not exists (select 1 from projects p where p.id = m.project_id and p.created_by = m.user_id);
  return m;
end $$;
create trigger project_members_sync after insert or delete on project_members for each row execute function sync_project_members();

create function sync_project_tags() returns trigger language plpgsql as $$
declare
  pid text := case when tg_op = 'DELETE' then old.project_id else new.project_id end;
begin
  perform sync_touch(p.workspace_id, 'project', p.id, p.id) from projects p where p.id = pid;
  return null;
end $$;
create trigger project_tags_sync after insert or delete on project_tags for each row execute function sync_project_tags();

create function sync_photo_tags() returns trigger language plpgsql as $$
declare
  pid text := case when tg_op = 'DELETE' then old.photo_id else new.photo_id end;
begin
  perform sync_touch(p.workspace_id, 'photo', p.id, p.project_id) from photos p where p.id = pid;
  return null;
end $$;
create trigger photo_tags_sync after insert or delete on photo_tags for each row execute function sync_photo_tags();

create function sync_task_photos() returns trigger language plpgsql as $$
declare
  tid text := case when tg_op = 'DELETE' then old.task_id else new.task_id end;
begin
  perform sync_touch(t.workspace_id, 'task', t.id, t.project_id) from tasks t where t.id = tid;
  return null;
end $$;
create trigger task_photos_sync after insert or update or delete on task_photos for each row execute function sync_task_photos();

-- Tags are workspace-wide; a new name or colour shows in every project and photo that has it.
create function sync_tags() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform sync_record(old.workspace_id, 'tag', old.id, null, 'delete');
    return old;
  end if;
  perform sync_record(new.workspace_id, 'tag', new.id, null, 'upsert');
  if tg_op = 'UPDATE' and (old.name, old.color) is distinct from (new.name, new.color) then
    perform sync_touch(p.workspace_id, 'project', p.id, p.id) from project_tags pt join projects p on p.id = pt.project_id where pt.tag_id = new.id;
    perform sync_touch(p.workspace_id, 'photo', p.id, p.project_id) from photo_tags pt join photos p on p.id = pt.photo_id where pt.tag_id = new.id;
  end if;
  return new;
end $$;
create trigger tags_sync after insert or update or delete on tags for each row execute function sync_tags();

-- Users are never deleted (DELETE deactivates). A role change into or out of `restricted`
-- changes which projects the user sees: one access row per project that flips.
create function sync_users() returns trigger language plpgsql as $$
begin
  perform sync_record(new.workspace_id, 'user', new.id, null, 'upsert');
  if tg_op = 'UPDATE' and (old.role = 'restricted') <> (new.role = 'restricted') then
    perform sync_access(p.workspace_id, new.id, p.id, case when new.role = 'restricted' then 'revoke' else 'grant' end)
       from projects p
      where p.workspace_id = new.workspace_id and p.created_by <> new.id
        and not exists (select 1 from project_members m where m.project_id = p.id and m.user_id = new.id);
  end if;
  return new;
end $$;
create trigger users_sync after insert or update of email, first_name, last_name, handle, role, status, deactivated_at on users for each row execute function sync_users();

-- What existed before this migration: one upsert each, stamped on the workspace's first sync.
insert into sync_changes (workspace_id, type, id, project_id, op)
          select workspace_id, 'project', id, id, 'upsert' from projects
union all select workspace_id, 'photo', id, project_id, 'upsert' from photos
union all select workspace_id, 'video', id, project_id, 'upsert' from videos
union all select workspace_id, 'task', id, project_id, 'upsert' from tasks
union all select workspace_id, 'comment', id, project_id, 'upsert' from comments
union all select workspace_id, 'document', id, project_id, 'upsert' from documents
union all select workspace_id, 'report', id, project_id, 'upsert' from reports
union all select workspace_id, 'tag', id, null, 'upsert' from tags
union all select workspace_id, 'user', id, null, 'upsert' from users;
