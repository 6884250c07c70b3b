-- Documents (issue 6): permits, drawings, contracts and spreadsheets kept with a project. The
-- bytes live in the blob store under `blob_key`; the type was sniffed from them at upload.
create table documents (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  project_id    text not null references projects(id) on delete cascade,
  name          text not null check (char_length(name) between 1 and 255),
  content_type  text not null,
  byte_size     bigint not null check (byte_size >= 0),
  sha256        text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  blob_key      text not null unique,
  uploaded_by   text not null references users(id),
  created_at    timestamptz(3) not null default now(),
  updated_at    timestamptz(3) not null default now()
);
create index documents_by_project on documents (project_id, id desc);
create index documents_by_workspace on documents (workspace_id, id desc);

create trigger documents_blob_garbage after delete on documents for each row execute function record_blob_garbage();
