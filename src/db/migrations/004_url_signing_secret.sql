-- The key that signs the blob URLs the API serves itself (GET /v1/files/…). Exactly one row: the
-- first process to start inserts 32 random bytes (insert … on conflict do nothing) and every
-- process, now and later, reads the same one, so a URL signed by one API process verifies on any
-- other without configuration. JOBSITE_URL_SIGNING_SECRET overrides it.
create table url_signing_secret (
  singleton   boolean primary key default true check (singleton),
  secret      bytea not null check (octet_length(secret) >= 32),
  created_at  timestamptz(3) not null default now()
);
