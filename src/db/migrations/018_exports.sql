-- ZIP exports of a project's original photos (issue 17): a request recorded by
-- POST /v1/projects/{id}/exports, written by the `write_export` job as one ZIP blob (`blob_key`,
-- set when it finished): the originals named by capture time and caption, plus photos.csv and
-- photos.json. The selection is kept as asked and resolved when the job runs.
create table exports (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  project_id    text not null references projects(id) on delete cascade,
  status        text not null default 'queued' check (status in ('queued', 'processing', 'finished', 'failed')),
  error         text,
  -- {photo_ids, captured_after, captured_before, tag_ids}: null members select everything
  selection     jsonb not null,
  -- What the ZIP downloads as: the project's name and the day it was asked for.
  file_name     text not null check (char_length(file_name) between 1 and 255),
  photo_count   integer check (photo_count >= 0),
  byte_size     bigint check (byte_size >= 0),
  blob_key      text unique,
  requested_by  text not null references users(id),
  created_at    timestamptz(3) not null default now(),
  updated_at    timestamptz(3) not null default now(),
  finished_at   timestamptz(3),
  check ((status = 'finished') = (blob_key is not null)),
  check ((status = 'failed') = (error is not null))
);
create index exports_by_project on exports (project_id, id desc);
create index exports_by_workspace on exports (workspace_id, id desc);
-- The lost-job sweep looks for exports still waiting.
create index exports_waiting on exports (created_at) where status in ('queued', 'processing');

-- The ZIP goes with its row, also when a whole project or workspace is deleted.
create function record_export_garbage() returns trigger language plpgsql as $$
begin
  if old.blob_key is not null then
    insert into blob_garbage (blob_key) values (old.blob_key) on conflict do nothing;
  end if;
  return old;
end $$;

create trigger exports_blob_garbage after delete on exports for each row execute function record_export_garbage();
