-- People sign in (issue 14): passwords, browser sessions, and the single-use tokens that set a
-- password (an invitation) or reset it. Only hashes of secrets are stored.

-- scrypt$N$r$p$salt$hash (base64): the parameters travel with the hash, so they can be raised later.
alter table users add column password_hash text;

create table sessions (
  id text primary key,
  workspace_id text not null references workspaces(id) on delete cascade,
  user_id text not null references users(id) on delete cascade,
  -- SHA-256 of the cookie's secret.
  token_hash bytea not null unique,
  user_agent text,
  created_at timestamptz not null default now(),
  -- Moved forward at most once a minute (src/http/session-usage); 30 days idle ends the session.
  last_used_at timestamptz not null default now()
);
create index sessions_user on sessions (user_id, id desc);
-- Idle sessions are swept as new ones start.
create index sessions_idle on sessions (last_used_at);

create table user_tokens (
  token_hash bytea primary key,
  user_id text not null references users(id) on delete cascade,
  kind text not null check (kind in ('invite', 'reset')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index user_tokens_user on user_tokens (user_id, kind);
