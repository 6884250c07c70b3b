-- Crew collaboration (issue 5): tags on projects and photos, tasks with attached photos,
-- comments on projects, photos and tasks, and the notifications they cause.

create table tags (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  name          text not null check (char_length(name) between 1 and 50),
  color         text not null check (color ~ '^#[0-9a-f]{6}$'),
  created_by    text references users(id) on delete set null,
  created_at    timestamptz(3) not null default now(),
  updated_at    timestamptz(3) not null default now()
);
-- Names are unique per workspace without regard to case ("Roof" and "roof" are one tag).
create unique index tags_name_per_workspace on tags (workspace_id, lower(name));
create index tags_by_workspace on tags (workspace_id, id desc);

create table project_tags (
  project_id    text not null references projects(id) on delete cascade,
  tag_id        text not null references tags(id) on delete cascade,
  workspace_id  text not null references workspaces(id) on delete cascade,
  created_at    timestamptz(3) not null default now(),
  primary key (project_id, tag_id)
);
create index project_tags_by_tag on project_tags (tag_id, project_id);

create table photo_tags (
  photo_id      text not null references photos(id) on delete cascade,
  tag_id        text not null references tags(id) on delete cascade,
  workspace_id  text not null references workspaces(id) on delete cascade,
  created_at    timestamptz(3) not null default now(),
  primary key (photo_id, tag_id)
);
create index photo_tags_by_tag on photo_tags (tag_id, photo_id);

create table tasks (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  project_id    text not null references projects(id) on delete cascade,
  title         text not null check (char_length(title) between 1 and 200),
  description   text,
  status        text not null default 'open' check (status in ('open', 'completed')),
  assignee_id   text references users(id),
  due_at        timestamptz(3),
  completed_at  timestamptz(3),
  completed_by  text references users(id),
  created_by    text not null references users(id),
  created_at    timestamptz(3) not null default now(),
  updated_at    timestamptz(3) not null default now(),
  check ((status = 'completed') = (completed_at is not null))
);
create index tasks_by_workspace on tasks (workspace_id, id desc);
create index tasks_by_project on tasks (project_id, id desc);
create index tasks_by_assignee on tasks (assignee_id, status) where assignee_id is not null;
create index tasks_by_due on tasks (workspace_id, due_at, id) where due_at is not null;

create table task_photos (
  task_id       text not null references tasks(id) on delete cascade,
  photo_id      text not null references photos(id) on delete cascade,
  position      integer not null default 0,
  primary key (task_id, photo_id)
);
create index task_photos_by_photo on task_photos (photo_id);

-- A comment's subject is its project, or a photo or task of that project: exactly one of
-- photo_id / task_id is set for those, neither for the project itself. The foreign keys let a
-- deleted photo or task take its comments with it.
create table comments (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  project_id    text not null references projects(id) on delete cascade,
  subject_type  text not null check (subject_type in ('project', 'photo', 'task')),
  photo_id      text references photos(id) on delete cascade,
  task_id       text references tasks(id) on delete cascade,
  author_id     text not null references users(id),
  body          text not null check (char_length(body) between 1 and 10000),
  -- [{user_id, handle}] resolved when the comment was written or edited
  mentions      jsonb not null default '[]',
  created_at    timestamptz(3) not null default now(),
  updated_at    timestamptz(3) not null default now(),
  check ((subject_type = 'photo') = (photo_id is not null)),
  check ((subject_type = 'task') = (task_id is not null))
);
create index comments_by_project on comments (project_id, id) where subject_type = 'project';
create index comments_by_photo on comments (photo_id, id) where photo_id is not null;
create index comments_by_task on comments (task_id, id) where task_id is not null;

create table notifications (
  id            text primary key,
  workspace_id  text not null references workspaces(id) on delete cascade,
  user_id       text not null references users(id) on delete cascade,
  kind          text not null check (kind in ('mention', 'task_assigned', 'task_comment')),
  actor_id      text references users(id) on delete set null,
  project_id    text references projects(id) on delete cascade,
  subject_type  text not null check (subject_type in ('project', 'photo', 'task', 'comment')),
  subject_id    text not null,
  -- The comment that mentioned the user or commented on their task, when there is one.
  comment_id    text references comments(id) on delete cascade,
  read_at       timestamptz(3),
  created_at    timestamptz(3) not null default now()
);
create index notifications_by_user on notifications (user_id, id desc);
create index notifications_unread on notifications (user_id, id desc) where read_at is null;
