-- Foundation: workspaces, users, API keys, projects and crews, plus the shared
-- request bookkeeping (idempotency keys, rate-limit windows).
-- Timestamps are timestamptz(3): the API speaks milliseconds, so the database stores them.

create table workspaces (
  id          text primary key,
  name        text not null,
  created_at  timestamptz(3) not null default now(),
  updated_at  timestamptz(3) not null default now()
);

create table users (
  id              text primary key,
  workspace_id    text not null references workspaces(id) on delete cascade,
  email           text not null,
  first_name      text,
  last_name       text,
  handle          text not null,
  role            text not null check (role in ('admin', 'manager', 'standard', 'restricted')),
  status          text not null default 'active' check (status in ('active', 'deactivated')),
  created_at      timestamptz(3) not null default now(),
  updated_at      timestamptz(3) not null default now(),
  deactivated_at  timestamptz(3)
);
create unique index users_email_per_workspace on users (workspace_id, lower(email));
create unique index users_handle_per_workspace on users (workspace_id, lower(handle));
create index users_list on users (workspace_id, id desc);

create table api_keys (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  user_id       text not null references users(id) on delete cascade,
  name          text not null,
  -- sha256 of the whole secret; the secret itself is never stored
  secret_hash   bytea not null unique,
  -- the first characters of the secret, so people can tell their keys apart
  secret_prefix text not null,
  read_only     boolean not null default false,
  created_by    text references users(id) on delete set null,
  created_at    timestamptz(3) not null default now(),
  revoked_at    timestamptz(3)
);
create index api_keys_list on api_keys (workspace_id, id desc);
create index api_keys_by_user on api_keys (user_id);

create table projects (
  id                text primary key,
  workspace_id      text not null references workspaces(id) on delete cascade,
  name              text not null,
  description       text,
  status            text not null default 'active' check (status in ('active', 'archived')),
  street_address_1  text,
  street_address_2  text,
  city              text,
  state             text,
  postal_code       text,
  country           text,
  lat               double precision check (lat between -90 and 90),
  lon               double precision check (lon between -180 and 180),
  cover_photo_id    text,
  created_by        text not null references users(id),
  created_at        timestamptz(3) not null default now(),
  updated_at        timestamptz(3) not null default now(),
  archived_at       timestamptz(3),
  check ((lat is null) = (lon is null))
);
create index projects_by_status on projects (workspace_id, status, id desc);
create index projects_by_update on projects (workspace_id, updated_at desc, id desc);
create index projects_by_creator on projects (created_by);

create table project_members (
  project_id    text not null references projects(id) on delete cascade,
  user_id       text not null references users(id) on delete cascade,
  workspace_id  text not null references workspaces(id) on delete cascade,
  added_by      text references users(id) on delete set null,
  added_at      timestamptz(3) not null default now(),
  primary key (project_id, user_id)
);
create index project_members_by_user on project_members (user_id, project_id);

create table idempotency_keys (
  -- who sent it (the API key's user), so two callers never share a key space
  scope             text not null,
  key               text not null,
  request_hash      text not null,
  status            text not null check (status in ('in_flight', 'completed')),
  response_status   integer,
  response_headers  jsonb,
  response_body     text,
  created_at        timestamptz(3) not null default now(),
  primary key (scope, key)
);
create index idempotency_keys_expiry on idempotency_keys (created_at);

create table rate_limit_windows (
  bucket        text not null,
  window_start  timestamptz(3) not null,
  count         integer not null,
  primary key (bucket, window_start)
);
