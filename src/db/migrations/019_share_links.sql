-- Share links (issue 17): a client sees chosen photos or one finished report on a public page
-- (/s/{token}) without an account. Only the SHA-256 of the token is stored; the token itself is
-- derived from the server's URL-signing secret and the link's id (share-links.tokens.ts), so the
-- API can show the URL again without keeping it anywhere.
create table share_links (
  id              text primary key,
  workspace_id    text not null references workspaces(id) on delete cascade,
  project_id      text not null references projects(id) on delete cascade,
  token_hash      bytea not null unique,
  -- A deleted report leaves the link answering "no longer available" rather than vanishing.
  report_id       text references reports(id) on delete set null,
  shares          text not null check (shares in ('photos', 'report')),
  allow_download  boolean not null default false,
  expires_at      timestamptz(3),
  view_count      integer not null default 0 check (view_count >= 0),
  last_viewed_at  timestamptz(3),
  created_by      text not null references users(id),
  created_at      timestamptz(3) not null default now(),
  revoked_at      timestamptz(3),
  revoked_by      text references users(id),
  check ((revoked_at is null) = (revoked_by is null))
);
create index share_links_by_workspace on share_links (workspace_id, id desc);
create index share_links_by_project on share_links (project_id, id desc);
create index share_links_by_report on share_links (report_id) where report_id is not null;

-- The shared photos, in the order given; a photo deleted later drops out of the page with its row.
create table share_link_photos (
  share_link_id  text not null references share_links(id) on delete cascade,
  photo_id       text not null references photos(id) on delete cascade,
  position       integer not null,
  primary key (share_link_id, photo_id)
);
create index share_link_photos_by_photo on share_link_photos (photo_id);
