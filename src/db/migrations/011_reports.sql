-- PDF photo reports (issue 6): a request recorded by POST /v1/projects/{id}/reports, rendered by
-- the `render_report` job into one blob (`blob_key`, set when it finished). The selection is kept
-- as asked (photo ids, a capture range, tags) and resolved when the job runs; `photo_count` says
-- how many photos the finished PDF holds.
create table reports (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  project_id    text not null references projects(id) on delete cascade,
  title         text not null check (char_length(title) between 1 and 200),
  status        text not null default 'queued' check (status in ('queued', 'processing', 'finished', 'failed')),
  error         text,
  -- {layout, time_zone, include_annotations, include_tasks, include_comments, page_size}
  options       jsonb not null,
  -- {photo_ids, captured_after, captured_before, tag_ids}: null members select everything
  selection     jsonb not null,
  photo_count   integer check (photo_count >= 0),
  page_count    integer check (page_count >= 0),
  byte_size     bigint check (byte_size >= 0),
  blob_key      text unique,
  requested_by  text not null references users(id),
  created_at    timestamptz(3) not null default now(),
  updated_at    timestamptz(3) not null default now(),
  finished_at   timestamptz(3),
  check ((status = 'finished') = (blob_key is not null)),
  check ((status = 'failed') = (error is not null))
);
create index reports_by_project on reports (project_id, id desc);
create index reports_by_workspace on reports (workspace_id, id desc);

-- The PDF goes with its row, also when a whole project or workspace is deleted.
create function record_report_garbage() returns trigger language plpgsql as $$
begin
  if old.blob_key is not null then
    insert into blob_garbage (blob_key) values (old.blob_key) on conflict do nothing;
  end if;
  return old;
end $$;

create trigger reports_blob_garbage after delete on reports for each row execute function record_report_garbage();
