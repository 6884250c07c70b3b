-- Events and webhooks. The event log is written in the same transaction as the change it
-- describes; so are the deliveries it fans out to subscribed endpoints. webhook_deliveries is
-- itself the delivery queue: due rows are claimed in batches with FOR UPDATE SKIP LOCKED under
-- a short lease (a crashed worker's claims simply expire), and pg_notify wakes the dispatcher.

create table events (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  -- no foreign key: project.deleted must outlive its project
  project_id    text,
  event         text not null,
  -- the envelope, serialized once: exactly the bytes every delivery of it sends
  payload       text not null,
  created_at    timestamptz(3) not null
);
create index events_list on events (workspace_id, id desc);
create index events_by_project on events (workspace_id, project_id, id desc);
create index events_by_type on events (workspace_id, event, id desc);
create index events_expiry on events (created_at);

create table webhook_endpoints (
  id                          text primary key,
  workspace_id                text not null references workspaces(id) on delete cascade,
  url                         text not null,
  description                 text,
  -- patterns: '*', 'photo.*' or 'photo.created'
  events                      text[] not null,
  enabled                     boolean not null default true,
  -- kept in the clear: every delivery is signed with it
  secret                      text not null,
  -- after a rotation the old secret signs alongside the new one until it expires
  previous_secret             text,
  previous_secret_expires_at  timestamptz(3),
  disabled_reason             text check (disabled_reason in ('manual', 'gone', 'failing')),
  disabled_at                 timestamptz(3),
  -- first failure since the last success; 5 days of it disables the endpoint
  failing_since               timestamptz(3),
  last_success_at             timestamptz(3),
  created_by                  text references users(id) on delete set null,
  created_at                  timestamptz(3) not null default now(),
  updated_at                  timestamptz(3) not null default now()
);
create index webhook_endpoints_by_workspace on webhook_endpoints (workspace_id, id desc);

create table webhook_deliveries (
  id                text primary key,
  workspace_id      text not null references workspaces(id) on delete cascade,
  endpoint_id       text not null references webhook_endpoints(id) on delete cascade,
  event_id          text not null references events(id) on delete cascade,
  -- pending: will be attempted at next_attempt_at; succeeded; failed: retries exhausted or endpoint disabled
  status            text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempt_count     integer not null default 0,
  next_attempt_at   timestamptz(3),
  -- a claimed delivery is leased until then; after a crash the lease runs out and it is claimed again
  lease_until       timestamptz(3),
  last_status_code  integer,
  last_error        text,
  created_at        timestamptz(3) not null default now(),
  updated_at        timestamptz(3) not null default now(),
  completed_at      timestamptz(3)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_by_endpoint on webhook_deliveries (endpoint_id, id desc);
create index webhook_deliveries_by_event on webhook_deliveries (event_id);

create table webhook_attempts (
  id                bigint generated always as identity primary key,
  delivery_id       text not null references webhook_deliveries(id) on delete cascade,
  attempted_at      timestamptz(3) not null,
  status_code       integer,
  duration_ms       integer not null,
  -- the first 4 KB of the response body
  response_excerpt  text,
  error             text
);
create index webhook_attempts_by_delivery on webhook_attempts (delivery_id, id);
