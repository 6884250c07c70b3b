import { sql, type SqlBool } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { CommentRow } from './comments.views.ts';

export type SubjectKind = 'photo' | 'task';

/** A photo or task commented on: its project, and for a task its current assignee. */
export interface SubjectFacts {
  /** Null for a photo not filed under a project yet (comments belong to a project). */
  project_id: string | null;
  assignee_id: string | null;
  /** A photo's uploader (who alone, among restricted users, sees it while it is unfiled); null for a task. */
  creator_id: string | null;
}

/** Where a list of comments is drawn from: one project's own conversation, or one photo's or task's. */
export type CommentScope = { type: 'project'; projectId: string } | { type: 'photo'; photoId: string } | { type: 'task'; taskId: string };

export class CommentsRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<CommentRow | undefined> {
    return db.selectFrom('comments').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The comments among `ids`, in no particular order, in one statement (sync reads a page's comments
   * with it); `visibleProjects` as in the list: for a restricted user, only those of their projects.
   */
  getMany(db: Executor, workspaceId: string, ids: readonly string[], visibleProjects: ReturnType<ProjectAccess['visibleProjectIds']>): Promise<CommentRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    let q = db.selectFrom('comments as c').selectAll('c').where('c.workspace_id', '=', workspaceId).where(sql<SqlBool>`c.id = any(${ids}::text[])`);
    if (visibleProjects !== null) q = q.where('c.project_id', 'in', visibleProjects);
    return q.execute();
  }

  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<CommentRow | undefined> {
    return db.selectFrom('comments').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /**
   * The photo or task a comment goes on. Read straight from its table (the tasks feature is not
   * needed to comment on a task). `lock` holds it (FOR SHARE) until the transaction ends, so it is
   * not deleted under a comment being written.
   */
  subject(db: Executor, workspaceId: string, kind: SubjectKind, id: string, lock = false): Promise<SubjectFacts | undefined> {
    if (kind === 'photo') {
      let q = db.selectFrom('photos').select(['project_id', sql<null>`null`.as('assignee_id'), 'creator_id']).where('workspace_id', '=', workspaceId).where('id', '=', id);
      if (lock) q = q.forShare();
      return q.executeTakeFirst();
    }
    let q = db.selectFrom('tasks').select(['project_id', 'assignee_id', sql<null>`null`.as('creator_id')]).where('workspace_id', '=', workspaceId).where('id', '=', id);
    if (lock) q = q.forShare();
    return q.executeTakeFirst();
  }

  /** The insert of a new comment, for the caller to run (in one statement with its event). */
  insertQuery(db: Executor, row: CommentRow) {
    return db.insertInto('comments').values({ ...row, mentions: JSON.stringify(row.mentions) });
  }

  /** Oldest first (a conversation reads top down), keyset on the id. */
  list(db: Executor, workspaceId: string, scope: CommentScope, afterId: string | null, limit: number): Promise<CommentRow[]> {
    let q = db.selectFrom('comments').selectAll().where('workspace_id', '=', workspaceId);
    if (scope.type === 'project') q = q.where('project_id', '=', scope.projectId).where('subject_type', '=', 'project');
    else if (scope.type === 'photo') q = q.where('photo_id', '=', scope.photoId);
    else q = q.where('task_id', '=', scope.taskId);
    if (afterId !== null) q = q.where('id', '>', afterId);
    return q.orderBy('id', 'asc').limit(limit + 1).execute();
  }

  /** A new body and its mentions; updated_at moves forward (at least 1 ms). */
  update(db: Executor, id: string, body: string, mentions: CommentRow['mentions']): Promise<CommentRow> {
    return db.updateTable('comments').set({ body, mentions: JSON.stringify(mentions), updated_at: bumpUpdatedAt })
      .where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('comments').where('id', '=', id).execute();
  }

  /**
   * Of the users named by `handles` (case-insensitively) or `userIds`, those a comment on the
   * project may mention or notify: active users of the workspace who can see the project (every
   * role but restricted; restricted users only on projects they created or are on the crew of —
   * the rule of projects.access.ts, here as SQL over other users).
   */
  audience(db: Executor, workspaceId: string, project: { id: string; created_by: string }, who: { handles?: string[]; userIds?: string[] }): Promise<{ id: string; handle: string }[]> {
    const handles = (who.handles ?? []).map((h) => h.toLowerCase());
    const userIds = who.userIds ?? [];
    if (handles.length === 0 && userIds.length === 0) return Promise.resolve([]);
    return db.selectFrom('users as u').select(['u.id', 'u.handle'])
      .where('u.workspace_id', '=', workspaceId).where('u.status', '=', 'active')
      .where(sql<SqlBool>`(lower(u.handle) = any(${handles}::text[]) or u.id = any(${userIds}::text[]))`)
      .where(sql<SqlBool>`(u.role <> 'restricted' or u.id = ${project.created_by}
        or exists (select 1 from project_members m where m.project_id = ${project.id} and m.user_id = u.id))`)
      .execute();
  }
}
