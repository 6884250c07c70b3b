-- Indexes for the project list's other shapes (the default, active by id, is projects_by_status):
-- every status, newest first; and one status by most recent change (sort=updated_at).
create index projects_by_workspace on projects (workspace_id, id desc);
create index projects_by_status_update on projects (workspace_id, status, updated_at desc, id desc);
