import { sql, type Insertable, type SqlBool, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Database, Role, TasksTable, TaskStatus, UserStatus } from '../../db/schema.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { TaskRow } from './tasks.views.ts';

export interface TaskListCriteria {
  workspaceId: string;
  /** A subquery of the project ids the caller may see (restricted users); null for all. */
  visibleProjects: ReturnType<ProjectAccess['visibleProjectIds']>;
  projectId?: string;
  assigneeId?: string;
  status?: TaskStatus;
  dueBefore?: Date;
  dueAfter?: Date;
  sort: 'created_at' | 'due_at';
  /** The last row of the previous page: its id, and its due_at (null included) when sorting by it. */
  after: { id: string; dueAt: Date | null } | null;
  limit: number;
}

/** What deciding on an assignee needs: who they are, and whether they can see the task's project. */
export interface AssigneeFacts {
  id: string;
  role: Role;
  status: UserStatus;
  created_project: boolean;
  is_member: boolean;
}

export class TasksRepository {
  /** The task; `lock` holds it until the transaction ends, so concurrent writes apply one after the other. */
  get(db: Executor, workspaceId: string, id: string, lock = false): Promise<TaskRow | undefined> {
    let q = db.selectFrom('tasks as t').selectAll('t')
      .where('t.workspace_id', '=', workspaceId).where('t.id', '=', id);
    if (lock) q = q.forUpdate('t');
    return q.executeTakeFirst();
  }

  /**
   * The tasks among `ids`, in no particular order, in one statement (sync reads a page's tasks
   * with it); `visibleProjects` as in the list: for a restricted user, only those of their projects.
   */
  getMany(db: Executor, workspaceId: string, ids: readonly string[], visibleProjects: ReturnType<ProjectAccess['visibleProjectIds']>): Promise<TaskRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    let q = db.selectFrom('tasks as t').selectAll('t').where('t.workspace_id', '=', workspaceId).where(sql<SqlBool>`t.id = any(${ids}::text[])`);
    if (visibleProjects !== null) q = q.where('t.project_id', 'in', visibleProjects);
    return q.execute();
  }

  async insert(db: Executor, row: Insertable<TasksTable>, photoIds: string[]): Promise<TaskRow> {
    await db.insertInto('tasks').values(row).execute();
    await this.setPhotos(db, row.id, photoIds);
    return (await this.get(db, row.workspace_id, row.id))!;
  }

  /** Replaces the task's photos with `photoIds`, in that order. */
  async setPhotos(db: Executor, taskId: string, photoIds: string[]): Promise<void> {
    await db.deleteFrom('task_photos').where('task_id', '=', taskId).execute();
    if (photoIds.length > 0) {
      await db.insertInto('task_photos').values(photoIds.map((photoId, position) => ({ task_id: taskId, photo_id: photoId, position }))).execute();
    }
  }

  /** Applies the changes and moves updated_at forward (at least 1 ms). Photos set earlier in the transaction are included. */
  update(db: Executor, id: string, changes: UpdateObject<Database, 'tasks'>): Promise<TaskRow> {
    return db.updateTable('tasks').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id)
      .returningAll().executeTakeFirstOrThrow();
  }

  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('tasks').where('id', '=', id).execute();
  }

  /** One query per page: filters, visibility and the keyset together. */
  list(db: Executor, c: TaskListCriteria): Promise<TaskRow[]> {
    let q = db.selectFrom('tasks as t').selectAll('t')
      .where('t.workspace_id', '=', c.workspaceId);
    if (c.projectId !== undefined) q = q.where('t.project_id', '=', c.projectId);
    if (c.visibleProjects !== null) q = q.where('t.project_id', 'in', c.visibleProjects);
    if (c.assigneeId !== undefined) q = q.where('t.assignee_id', '=', c.assigneeId);
    if (c.status !== undefined) q = q.where('t.status', '=', c.status);
    if (c.dueBefore !== undefined) q = q.where('t.due_at', '<', c.dueBefore);
    if (c.dueAfter !== undefined) q = q.where('t.due_at', '>=', c.dueAfter);
    if (c.sort === 'due_at') {
      // Soonest first, undated last; ties (and the undated) in id order.
      if (c.after) {
        const { dueAt, id } = c.after;
        q = q.where(dueAt === null
          ? sql<SqlBool>`(t.due_at is null and t.id > ${id})`
          : sql<SqlBool>`(t.due_at > ${dueAt} or (t.due_at = ${dueAt} and t.id > ${id}) or t.due_at is null)`);
      }
      q = q.orderBy(sql`t.due_at asc nulls last`).orderBy('t.id', 'asc');
    } else {
      if (c.after) q = q.where('t.id', '<', c.after.id);
      q = q.orderBy('t.id', 'desc');
    }
    return q.limit(c.limit + 1).execute();
  }

  /**
   * Which of `photoIds` are photos of the project, each held (FOR SHARE) until the transaction
   * ends so none can be deleted before the task points at it.
   */
  async photosOfProject(db: Executor, workspaceId: string, projectId: string, photoIds: string[]): Promise<Set<string>> {
    if (photoIds.length === 0) return new Set();
    const rows = await db.selectFrom('photos').select('id')
      .where('workspace_id', '=', workspaceId).where('project_id', '=', projectId).where('id', 'in', photoIds)
      .forShare().execute();
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The would-be assignee, held (FOR SHARE) until the transaction ends, so a concurrent
   * deactivation (which unassigns their open tasks) happens wholly before or after.
   */
  assigneeFacts(db: Executor, workspaceId: string, userId: string, projectId: string): Promise<AssigneeFacts | undefined> {
    return db.selectFrom('users as u').select(['u.id', 'u.role', 'u.status'])
      .select(sql<boolean>`exists (select 1 from projects p where p.id = ${projectId} and p.created_by = u.id)`.as('created_project'))
      .select(sql<boolean>`exists (select 1 from project_members m where m.project_id = ${projectId} and m.user_id = u.id)`.as('is_member'))
      .where('u.workspace_id', '=', workspaceId).where('u.id', '=', userId)
      .forShare('u').executeTakeFirst();
  }

  /** Takes the user off every open task assigned to them; returns those tasks as they are now, in id order. */
  async unassignOpenTasksOf(db: Executor, workspaceId: string, userId: string): Promise<TaskRow[]> {
    const rows = await db.updateTable('tasks').set({ assignee_id: null, updated_at: bumpUpdatedAt })
      .where('workspace_id', '=', workspaceId).where('assignee_id', '=', userId).where('status', '=', 'open')
      .returningAll().execute();
    return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
