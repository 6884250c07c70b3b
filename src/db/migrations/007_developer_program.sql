-- Developer program (issue 7): applications for API access, the operator's system workspace
-- that carries operator notifications through the webhook machinery, and the API key life
-- cycle (expiry, last use, rotation with a grace period).

-- The operator's workspace. It has no users and no keys, so no API request ever acts in it
-- (every query is scoped to the caller's workspace): its events and its one webhook endpoint,
-- the operator webhook synced from JOBSITE_OPERATOR_WEBHOOK_URL, are invisible to integrators.
insert into workspaces (id, name) values ('wsp_00000000000000000000000000', 'Jobsite operator (system)')
  on conflict (id) do nothing;

create table developer_applications (
  id                         text primary key,
  status                     text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
  company_name               text not null,
  contact_name               text not null,
  email                      text not null,
  intended_use               text not null,
  website                    text,
  expected_monthly_requests  bigint,
  -- sha256 of the status token given to the applicant; the token itself is never stored
  status_token_hash          bytea not null,
  -- the address the application came from, for the operator's review
  client_ip                  text,
  created_at                 timestamptz(3) not null default now(),
  updated_at                 timestamptz(3) not null default now(),
  reviewed_at                timestamptz(3),
  rejection_reason           text,
  -- what approval made; set null if those go away
  workspace_id               text references workspaces(id) on delete set null,
  user_id                    text references users(id) on delete set null,
  api_key_id                 text references api_keys(id) on delete set null,
  -- when the key (or the rejection) reached the applicant's mail server; null: not (yet) sent
  notified_at                timestamptz(3),
  -- how the current key left: 'email', or 'printed' (no SMTP configured: the operator got it)
  key_delivery               text check (key_delivery in ('email', 'printed'))
);
-- one pending application per e-mail address (case-insensitive)
create unique index developer_applications_one_pending on developer_applications (lower(email)) where status = 'pending';
create index developer_applications_list on developer_applications (status, id desc);

alter table api_keys
  add column expires_at                  timestamptz(3),
  add column last_used_at                timestamptz(3),
  add column rotated_at                  timestamptz(3),
  -- after a rotation the old secret stays valid until previous_secret_expires_at
  add column previous_secret_hash        bytea,
  add column previous_secret_expires_at  timestamptz(3);
create unique index api_keys_previous_secret on api_keys (previous_secret_hash) where previous_secret_hash is not null;
