import type { Selectable } from 'kysely';
import type { TasksTable } from '../../db/schema.ts';
import type { TaskView } from './tasks.schemas.ts';

/** A task row as the repository reads it: the table's columns, its photo ids in their order among them (migration 024). */
export type TaskRow = Selectable<TasksTable>;
export type { TaskView };

/** A task as the API returns it (and as its events carry it). */
export const toTaskView = (t: TaskRow): TaskView => ({
  id: t.id,
  project_id: t.project_id,
  title: t.title,
  description: t.description,
  status: t.status,
  assignee_id: t.assignee_id,
  due_at: t.due_at?.toISOString() ?? null,
  completed_at: t.completed_at?.toISOString() ?? null,
  completed_by: t.completed_by,
  photo_ids: t.photo_ids,
  created_by: t.created_by,
  created_at: t.created_at.toISOString(),
  updated_at: t.updated_at.toISOString(),
});
