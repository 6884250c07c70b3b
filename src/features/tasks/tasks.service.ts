import { sql, type Updateable } from 'kysely';
import type { Db, Executor, Tx } from '../../db/database.ts';
import type { TasksTable } from '../../db/schema.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound, unprocessable } from '../../http/errors.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isIsoTimestamp, parseRfc3339 } from '../../http/timestamps.ts';
import { isId, newId } from '../../ids.ts';
import { assertMay } from '../access/permissions.ts';
import type { EventType } from '../events/event-types.ts';
import type { EventLog } from '../events/events.log.ts';
import type { Notifier } from '../notifications/notifications.service.ts';
import { canSeeProject, ProjectAccess, type ProjectAccessFacts } from '../projects/projects.access.ts';
import { TasksRepository, type TaskListCriteria } from './tasks.repository.ts';
import type { TaskCreateInput, TaskListFilters, TaskPatchInput } from './tasks.schemas.ts';
import { toTaskView, type TaskRow, type TaskView } from './tasks.views.ts';

type TaskEvent = Extract<EventType, `task.${string}`>;

/**
 * Tasks on a project. Seeing a task is seeing its project (projects.access.ts: 404 otherwise);
 * what a role may then do is the permission table (access/permissions.ts: 403 otherwise):
 * create, edit and assign — admin, manager, standard; delete — admin, manager, and standard their
 * own; complete and reopen — everyone who can see the project, restricted users included.
 *
 * Events, each in the change's transaction: task.created (and task.assigned after it when the
 * new task has an assignee); on PATCH exactly one — task.assigned when the assignee changed (it
 * carries the whole task, other changes included), else task.updated; task.completed,
 * task.reopened, task.deleted. A write that changes nothing emits nothing. The new assignee is
 * notified (`task_assigned`) unless they assigned themselves.
 */
export class TasksService {
  private readonly tasks = new TasksRepository();
  private readonly access = new ProjectAccess();

  constructor(private readonly db: Db, private readonly events: EventLog, private readonly notifier: Notifier) {}

  async list(actor: Actor, filters: TaskListFilters & { limit: number }, projectId?: string): Promise<PageOf<TaskView>> {
    if (projectId !== undefined) await this.access.requireProject(this.db, actor, projectId, 'view');
    const sort = filters.sort ?? 'created_at';
    const criteria: TaskListCriteria = {
      workspaceId: actor.workspaceId,
      visibleProjects: this.access.visibleProjectIds(this.db, actor),
      projectId: projectId ?? filters.project_id,
      assigneeId: filters.assignee_id,
      status: filters.status,
      dueBefore: filters.due_before === undefined ? undefined : parseRfc3339(filters.due_before, 'query.due_before'),
      dueAfter: filters.due_after === undefined ? undefined : parseRfc3339(filters.due_after, 'query.due_after'),
      sort,
      after: null,
      limit: filters.limit,
    };
    if (sort === 'due_at') {
      const after = decodeCursor(filters.cursor, sort, 2, ([at, id]) => (at === null || isIsoTimestamp(at!)) && typeof id === 'string');
      if (after) criteria.after = { dueAt: after[0] === null ? null : new Date(after[0] as string), id: after[1] as string };
      return toPage(await this.tasks.list(this.db, criteria), filters.limit, sort, (t) => [t.due_at?.toISOString() ?? null, t.id], toTaskView);
    }
    const after = decodeCursor(filters.cursor, sort, 1, ([id]) => typeof id === 'string');
    if (after) criteria.after = { id: after[0] as string, dueAt: null };
    return toPage(await this.tasks.list(this.db, criteria), filters.limit, sort, (t) => [t.id], toTaskView);
  }

  async get(actor: Actor, id: string): Promise<TaskView> {
    return toTaskView((await this.task(this.db, actor, id)).task);
  }

  /**
   * The tasks among `ids` that the caller may see, each as `get` returns it, in no particular
   * order (the others are left out): sync's read of a page, one statement instead of one `get` each.
   */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<TaskView[]> {
    const rows = await this.tasks.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('task', id)), this.access.visibleProjectIds(this.db, actor));
    return rows.map(toTaskView);
  }

  async create(actor: Actor, projectId: string, input: TaskCreateInput): Promise<TaskView> {
    return this.db.transaction().execute(async (tx) => {
      // Held (FOR SHARE) so the project cannot be deleted before the task is in.
      const project = await this.access.requireProject(tx, actor, projectId, 'contribute', 'share');
      assertMay(actor, 'task.create');
      const assigneeId = input.assignee_id ?? null;
      if (assigneeId !== null) {
        assertMay(actor, 'task.assign');
        await this.checkAssignee(tx, actor, project, assigneeId);
      }
      const photoIds = input.photo_ids ?? [];
      await this.checkPhotos(tx, actor, project.id, photoIds);
      const row = await this.tasks.insert(tx, {
        id: newId('task'),
        workspace_id: actor.workspaceId,
        project_id: project.id,
        title: input.title.trim(),
        description: input.description ?? null,
        assignee_id: assigneeId,
        due_at: input.due_at == null ? null : parseRfc3339(input.due_at, 'body.due_at'),
        created_by: actor.userId,
      }, photoIds);
      const view = await this.emitChange(tx, 'task.created', row);
      if (assigneeId !== null) await this.emitAssignment(tx, actor, row);
      return view;
    });
  }

  /** JSON merge patch; a patch that changes nothing leaves the task (and its ETag) as it was, and emits nothing. */
  async update(actor: Actor, id: string, patch: TaskPatchInput, ifMatch: IfMatch): Promise<TaskView> {
    return this.db.transaction().execute(async (tx) => {
      const { task, project } = await this.task(tx, actor, id, true);
      assertMay(actor, 'task.edit');
      const reassigns = patch.assignee_id !== undefined && patch.assignee_id !== task.assignee_id;
      if (reassigns) assertMay(actor, 'task.assign');
      checkIfMatch(ifMatch, toTaskView(task));
      const changes = changesOf(task, patch);
      if (reassigns && patch.assignee_id) await this.checkAssignee(tx, actor, project, patch.assignee_id);
      const photosChange = patch.photo_ids !== undefined && !sameList(patch.photo_ids, task.photo_ids);
      if (photosChange) {
        await this.checkPhotos(tx, actor, task.project_id, patch.photo_ids!);
        await this.tasks.setPhotos(tx, task.id, patch.photo_ids!);
      }
      if (Object.keys(changes).length === 0 && !photosChange) return toTaskView(task);
      const row = await this.tasks.update(tx, task.id, changes);
      if (!reassigns) return this.emitChange(tx, 'task.updated', row);
      return this.emitAssignment(tx, actor, row);
    });
  }

  async remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const { task } = await this.task(tx, actor, id, true);
      assertMay(actor, 'task.delete', task.created_by);
      checkIfMatch(ifMatch, toTaskView(task));
      await this.emitChange(tx, 'task.deleted', task);
      await this.tasks.delete(tx, task.id);
    });
  }

  /**
   * Idempotent: completing a completed task returns it unchanged (the first completion's
   * completed_at and completed_by stay; no event). The row lock makes two concurrent completions
   * one completion and one no-op.
   */
  async complete(actor: Actor, id: string): Promise<TaskView> {
    return this.db.transaction().execute(async (tx) => {
      const { task } = await this.task(tx, actor, id, true);
      assertMay(actor, 'task.complete');
      if (task.status === 'completed') return toTaskView(task);
      const row = await this.tasks.update(tx, task.id, { status: 'completed', completed_at: sql<Date>`now()`, completed_by: actor.userId });
      return this.emitChange(tx, 'task.completed', row);
    });
  }

  /** Idempotent: reopening an open task returns it unchanged. */
  async reopen(actor: Actor, id: string): Promise<TaskView> {
    return this.db.transaction().execute(async (tx) => {
      const { task } = await this.task(tx, actor, id, true);
      assertMay(actor, 'task.complete');
      if (task.status === 'open') return toTaskView(task);
      const row = await this.tasks.update(tx, task.id, { status: 'open', completed_at: null, completed_by: null });
      return this.emitChange(tx, 'task.reopened', row);
    });
  }

  /**
   * For the users feature, inside the transaction that deactivates `userId`: takes them off every
   * open task assigned to them, each emitting task.assigned with a null assignee. Completed tasks
   * keep their assignee (the record of who did the work).
   */
  static async unassignOpenTasksOf(tx: Tx, events: EventLog, workspaceId: string, userId: string): Promise<number> {
    const rows = await new TasksRepository().unassignOpenTasksOf(tx, workspaceId, userId);
    for (const row of rows) {
      await events.emit(tx, { workspaceId: row.workspace_id, event: 'task.assigned', projectId: row.project_id, data: toTaskView(row) });
    }
    return rows.length;
  }

  /** Records a change in the event log, inside the change's transaction; `data` is the task as the API returns it. */
  private async emitChange(tx: Tx, event: TaskEvent, row: TaskRow): Promise<TaskView> {
    const view = toTaskView(row);
    await this.events.emit(tx, { workspaceId: row.workspace_id, event, projectId: row.project_id, data: view });
    return view;
  }

  /** task.assigned, and a `task_assigned` notification for the new assignee (none for nobody, none for oneself). */
  private async emitAssignment(tx: Tx, actor: Actor, row: TaskRow): Promise<TaskView> {
    const view = await this.emitChange(tx, 'task.assigned', row);
    if (row.assignee_id !== null) {
      await this.notifier.notify(tx, {
        workspaceId: row.workspace_id, userId: row.assignee_id, kind: 'task_assigned', actorId: actor.userId,
        projectId: row.project_id, subject: { type: 'task', id: row.id },
      });
    }
    return view;
  }

  /**
   * An assignee is an active user of the workspace who can see the project. A restricted user who
   * neither created the project nor is on its crew is refused (422), never added to the crew as a
   * side effect: the caller adds them with PUT /v1/projects/{id}/members/{user_id} first.
   */
  private async checkAssignee(tx: Tx, actor: Actor, project: ProjectAccessFacts, userId: string): Promise<void> {
    const errors = (message: string) => [{ path: 'body.assignee_id', message }];
    const user = await this.tasks.assigneeFacts(tx, actor.workspaceId, userId, project.id);
    if (!user) return unprocessable('assignee_not_found', `No user with id "${userId}" exists in this workspace.`, errors('must be a user of this workspace'));
    if (user.status !== 'active') unprocessable('user_inactive', `${userId} is deactivated; tasks can only be assigned to active users.`, errors('must be an active user'));
    const assignee: Actor = { ...actor, userId: user.id, role: user.role };
    if (!canSeeProject(assignee, { ...project, is_member: user.is_member })) {
      unprocessable('assignee_cannot_see_project',
        `${userId} is a restricted user who is not on this project's crew; add them with PUT /v1/projects/${project.id}/members/${userId} first.`,
        errors('must be a user who can see the project'));
    }
  }

  /** Every attached photo must be a photo of the task's project; the first that is not is named (422). */
  private async checkPhotos(tx: Tx, actor: Actor, projectId: string, photoIds: string[]): Promise<void> {
    const found = await this.tasks.photosOfProject(tx, actor.workspaceId, projectId, photoIds);
    const index = photoIds.findIndex((photoId) => !found.has(photoId));
    if (index >= 0) {
      unprocessable('photo_not_in_project', `${photoIds[index]} is not a photo of this task's project.`,
        [{ path: `body.photo_ids.${index}`, message: 'must be a photo of the same project' }]);
    }
  }

  /** The task when the actor can see its project (404 otherwise, exactly like a missing task), with the project's access facts. */
  private async task(db: Executor, actor: Actor, id: string, lock = false): Promise<{ task: TaskRow; project: ProjectAccessFacts }> {
    const task = isId('task', id) ? await this.tasks.get(db, actor.workspaceId, id, lock) : undefined;
    if (!task) return notFound('task', id);
    return { task, project: await this.access.requireProjectOf(db, actor, task.project_id, { kind: 'task', id }) };
  }
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The columns a merge patch actually changes (photos are handled apart). */
function changesOf(task: TaskRow, patch: TaskPatchInput): Updateable<TasksTable> {
  const changes: Updateable<TasksTable> = {};
  if (patch.title !== undefined && patch.title.trim() !== task.title) changes.title = patch.title.trim();
  if (patch.description !== undefined && patch.description !== task.description) changes.description = patch.description;
  if (patch.assignee_id !== undefined && patch.assignee_id !== task.assignee_id) changes.assignee_id = patch.assignee_id;
  if (patch.due_at !== undefined) {
    const next = patch.due_at === null ? null : parseRfc3339(patch.due_at, 'body.due_at');
    if ((next?.getTime() ?? null) !== (task.due_at?.getTime() ?? null)) changes.due_at = next;
  }
  return changes;
}
