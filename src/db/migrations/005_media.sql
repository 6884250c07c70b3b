-- Photos and videos: the row holds what the API returns; the bytes live in the blob store under
-- `blob_key` (the original) and its variants (`<blob_key>.large`, `.thumbnail`, `.annotated`,
-- `.poster`), recorded in `variants` once a job has made them.
--
-- captured_at is never null: the client's value, else the EXIF time once processed, else the
-- upload time; `captured_at_source` says which (client | exif | upload), so a reprocessing run
-- never overwrites what a client set. The same for coordinates (client | exif, or null).
create table photos (
  id                  text primary key,
  workspace_id        text not null references workspaces(id) on delete cascade,
  project_id          text not null references projects(id) on delete cascade,
  creator_id          text not null references users(id),
  blob_key            text not null unique,
  content_type        text not null,
  byte_size           bigint not null check (byte_size >= 0),
  sha256              text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  width               integer check (width > 0),
  height              integer check (height > 0),
  orientation         smallint check (orientation between 1 and 8),
  caption             text,
  captured_at         timestamptz(3) not null,
  captured_at_source  text not null check (captured_at_source in ('client', 'exif', 'upload')),
  lat                 double precision check (lat between -90 and 90),
  lon                 double precision check (lon between -180 and 180),
  altitude            double precision,
  coordinates_source  text check (coordinates_source in ('client', 'exif')),
  source_url          text,
  variants            jsonb not null default '{}',
  annotations         jsonb not null default '[]',
  -- Moves on every PUT of annotations; the render job writes its variant only for the version it read.
  annotations_version integer not null default 0,
  processing_status   text not null default 'pending' check (processing_status in ('pending', 'processed', 'failed')),
  processing_error    text,
  processed_at        timestamptz(3),
  created_at          timestamptz(3) not null default now(),
  updated_at          timestamptz(3) not null default now(),
  check ((lat is null) = (lon is null)),
  check ((lat is null) = (coordinates_source is null))
);
create index photos_by_workspace on photos (workspace_id, id desc);
create index photos_by_project on photos (project_id, id desc);
create index photos_by_capture on photos (workspace_id, captured_at desc, id desc);
create index photos_by_project_capture on photos (project_id, captured_at desc, id desc);
create index photos_by_creator on photos (workspace_id, creator_id, id desc);
create index photos_pending on photos (created_at) where processing_status = 'pending';

create table videos (
  id                  text primary key,
  workspace_id        text not null references workspaces(id) on delete cascade,
  project_id          text not null references projects(id) on delete cascade,
  creator_id          text not null references users(id),
  blob_key            text not null unique,
  content_type        text not null,
  byte_size           bigint not null check (byte_size >= 0),
  sha256              text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  width               integer check (width > 0),
  height              integer check (height > 0),
  duration_s          double precision check (duration_s >= 0),
  codec               text,
  caption             text,
  captured_at         timestamptz(3) not null,
  captured_at_source  text not null check (captured_at_source in ('client', 'metadata', 'upload')),
  lat                 double precision check (lat between -90 and 90),
  lon                 double precision check (lon between -180 and 180),
  altitude            double precision,
  coordinates_source  text check (coordinates_source in ('client', 'metadata')),
  -- {"poster": {"key", "width", "height", "byte_size"}} once the job made one.
  variants            jsonb not null default '{}',
  processing_status   text not null default 'pending' check (processing_status in ('pending', 'processed', 'failed')),
  processing_error    text,
  processed_at        timestamptz(3),
  created_at          timestamptz(3) not null default now(),
  updated_at          timestamptz(3) not null default now(),
  check ((lat is null) = (lon is null)),
  check ((lat is null) = (coordinates_source is null))
);
create index videos_by_workspace on videos (workspace_id, id desc);
create index videos_by_project on videos (project_id, id desc);
create index videos_by_capture on videos (workspace_id, captured_at desc, id desc);
create index videos_by_project_capture on videos (project_id, captured_at desc, id desc);
create index videos_by_creator on videos (workspace_id, creator_id, id desc);
create index videos_pending on videos (created_at) where processing_status = 'pending';

-- A project's cover is one of its photos; deleting the photo clears it.
alter table projects add constraint projects_cover_photo
  foreign key (cover_photo_id) references photos(id) on delete set null;

-- Blobs whose rows are gone (a photo, a video, or a whole project or workspace deleted): the
-- trigger records the key in the deleting transaction, so no object is forgotten if the process
-- dies right after the commit; the `collect_blob_garbage` job deletes the objects and the rows.
create table blob_garbage (
  blob_key    text primary key,
  created_at  timestamptz(3) not null default now()
);

create function record_blob_garbage() returns trigger language plpgsql as $$
begin
  insert into blob_garbage (blob_key) values (old.blob_key) on conflict do nothing;
  return old;
end $$;

create trigger photos_blob_garbage after delete on photos for each row execute function record_blob_garbage();
create trigger videos_blob_garbage after delete on videos for each row execute function record_blob_garbage();
