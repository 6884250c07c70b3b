import type { Db, Executor, Tx } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound, unprocessable, validationFailed } from '../../http/errors.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import { assertMay } from '../access/permissions.ts';
import type { EventLog } from '../events/events.log.ts';
import type { Notifier } from '../notifications/notifications.service.ts';
import { ProjectAccess, type ProjectAccessFacts, type ProjectAction } from '../projects/projects.access.ts';
import { MAX_MENTIONS_PER_COMMENT, mentionedHandles } from './comments.mentions.ts';
import { CommentsRepository, type CommentScope, type SubjectKind } from './comments.repository.ts';
import type { CommentCreateInput, CommentListFilters, CommentPatchInput } from './comments.schemas.ts';
import { toCommentView, type CommentRow, type CommentView } from './comments.views.ts';

export type CommentSubjectRef = { type: 'project' | SubjectKind; id: string };

type Mentions = CommentRow['mentions'];

/** A subject the caller may comment on or read: its project's access facts and, for a task, its assignee. */
interface Target {
  scope: CommentScope;
  project: ProjectAccessFacts;
  assigneeId: string | null;
}

/**
 * Comments on a project, or on a photo or task of it. Seeing the subject's project comes first
 * (ProjectAccess: anything of a project the caller cannot see is a 404); then the permission
 * table (comment.create / comment.edit / comment.delete in access/permissions.ts).
 *
 * Notifications (in the comment's transaction, through the Notifier, never to the author):
 * - each user the body mentions gets a `mention` (on an edit, only users the edit newly mentions);
 * - the assignee of a task commented on gets a `task_comment` — unless the comment also mentions
 *   them: then the `mention` alone (one notification per user per comment). An assignee who can no
 *   longer see the project, or is deactivated, is not notified.
 */
export class CommentsService {
  private readonly comments = new CommentsRepository();
  private readonly access = new ProjectAccess();

  constructor(private readonly db: Db, private readonly events: EventLog, private readonly notifier: Notifier) {}

  async list(actor: Actor, subject: CommentSubjectRef, filters: CommentListFilters & { limit: number }): Promise<PageOf<CommentView>> {
    const target = await this.target(this.db, actor, subject, 'view', false);
    const after = decodeCursor(filters.cursor, 'id', 1, ([id]) => typeof id === 'string');
    const rows = await this.comments.list(this.db, actor.workspaceId, target.scope, (after?.[0] as string | undefined) ?? null, filters.limit);
    return toPage(rows, filters.limit, 'id', (c) => [c.id], toCommentView);
  }

  async create(actor: Actor, subject: CommentSubjectRef, input: CommentCreateInput): Promise<CommentView> {
    checkBody(input.body);
    return this.db.transaction().execute(async (tx) => {
      const target = await this.target(tx, actor, subject, 'contribute', true);
      assertMay(actor, 'comment.create');
      const mentions = await this.resolveMentions(tx, actor.workspaceId, target.project, input.body);
      const now = new Date();
      const row: CommentRow = {
        id: newId('comment'),
        workspace_id: actor.workspaceId,
        project_id: target.project.id,
        subject_type: target.scope.type,
        photo_id: target.scope.type === 'photo' ? target.scope.photoId : null,
        task_id: target.scope.type === 'task' ? target.scope.taskId : null,
        author_id: actor.userId,
        body: input.body,
        mentions,
        created_at: now,
        updated_at: now,
      };
      const view = toCommentView(row);
      await this.events.emit(tx, {
        workspaceId: actor.workspaceId, event: 'comment.created', projectId: row.project_id, data: view,
        alongWith: this.comments.insertQuery(tx, row),
      });
      await this.notifyMentioned(tx, actor, row, mentions);
      const assignee = target.assigneeId;
      if (assignee !== null && !mentions.some((m) => m.user_id === assignee) &&
        (await this.comments.audience(tx, actor.workspaceId, target.project, { userIds: [assignee] })).length > 0) {
        await this.notifier.notify(tx, {
          workspaceId: actor.workspaceId, userId: assignee, kind: 'task_comment', actorId: actor.userId,
          projectId: row.project_id, subject: { type: 'comment', id: row.id }, commentId: row.id,
        });
      }
      return view;
    });
  }

  async get(actor: Actor, id: string): Promise<CommentView> {
    return toCommentView((await this.comment(this.db, actor, id, false)).row);
  }

  /**
   * The comments among `ids` that the caller may see, each as `get` returns it, in no particular
   * order (the others are left out): sync's read of a page, one statement instead of one `get` each.
   */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<CommentView[]> {
    const rows = await this.comments.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('comment', id)), this.access.visibleProjectIds(this.db, actor));
    return rows.map(toCommentView);
  }

  /** Authors edit their own comments (any role). Users the new body newly mentions are notified. */
  async update(actor: Actor, id: string, patch: CommentPatchInput, ifMatch: IfMatch): Promise<CommentView> {
    if (patch.body !== undefined) checkBody(patch.body);
    return this.db.transaction().execute(async (tx) => {
      const { row, project } = await this.comment(tx, actor, id, true);
      assertMay(actor, 'comment.edit', row.author_id);
      checkIfMatch(ifMatch, versionOf(row));
      if (patch.body === undefined || patch.body === row.body) return toCommentView(row);
      const mentions = await this.resolveMentions(tx, actor.workspaceId, project, patch.body);
      const updated = await this.comments.update(tx, row.id, patch.body, mentions);
      const view = toCommentView(updated);
      await this.events.emit(tx, { workspaceId: actor.workspaceId, event: 'comment.updated', projectId: updated.project_id, data: view });
      const before = new Set(row.mentions.map((m) => m.user_id));
      await this.notifyMentioned(tx, actor, updated, mentions.filter((m) => !before.has(m.user_id)));
      return view;
    });
  }

  /** Authors delete their own; admins and managers any. The notifications it caused go with it. */
  async remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const { row } = await this.comment(tx, actor, id, true);
      assertMay(actor, 'comment.delete', row.author_id);
      checkIfMatch(ifMatch, versionOf(row));
      await this.events.emit(tx, { workspaceId: actor.workspaceId, event: 'comment.deleted', projectId: row.project_id, data: toCommentView(row) });
      await this.comments.delete(tx, row.id);
    });
  }

  /** The users `body` mentions who may be: in the order first mentioned, with their handle as it is now. */
  private async resolveMentions(db: Executor, workspaceId: string, project: ProjectAccessFacts, body: string): Promise<Mentions> {
    const handles = mentionedHandles(body);
    if (handles.length === 0) return [];
    const users = await this.comments.audience(db, workspaceId, project, { handles });
    const byHandle = new Map(users.map((u) => [u.handle.toLowerCase(), u]));
    const mentions: Mentions = [];
    for (const handle of handles) {
      const user = byHandle.get(handle.toLowerCase());
      if (user) mentions.push({ user_id: user.id, handle: user.handle });
      if (mentions.length === MAX_MENTIONS_PER_COMMENT) break;
    }
    return mentions;
  }

  private async notifyMentioned(tx: Tx, actor: Actor, comment: CommentRow, mentioned: Mentions): Promise<void> {
    for (const m of mentioned) {
      await this.notifier.notify(tx, {
        workspaceId: actor.workspaceId, userId: m.user_id, kind: 'mention', actorId: actor.userId,
        projectId: comment.project_id, subject: { type: 'comment', id: comment.id }, commentId: comment.id,
      });
    }
  }

  /**
   * The project, photo or task commented on, when the caller can see its project (404 otherwise,
   * naming the subject). With `lock`, the project is held (FOR SHARE) and then the photo or task,
   * in that order, so neither is deleted under the comment being written.
   */
  private async target(db: Executor, actor: Actor, subject: CommentSubjectRef, action: ProjectAction, lock: boolean): Promise<Target> {
    if (subject.type === 'project') {
      const project = await this.access.requireProject(db, actor, subject.id, action, lock ? 'share' : 'none');
      return { scope: { type: 'project', projectId: project.id }, project, assigneeId: null };
    }
    const kind = subject.type;
    const found = isId(kind, subject.id) ? await this.comments.subject(db, actor.workspaceId, kind, subject.id) : undefined;
    if (!found) return notFound(kind, subject.id);
    if (found.project_id === null) {
      if (actor.role === 'restricted' && found.creator_id !== actor.userId) return notFound(kind, subject.id);
      // An unfiled photo (POST /v1/photos): its conversation starts once it belongs to a project.
      unprocessable('photo_not_filed', `Photo ${subject.id} is not filed under a project yet; move it to one (PATCH /v1/photos/{id} with project_id) to comment on it.`);
    }
    const project = await this.inProject(db, actor, found.project_id!, action, kind, subject.id, lock);
    const facts = lock ? await this.comments.subject(db, actor.workspaceId, kind, subject.id, true) : found;
    if (!facts) return notFound(kind, subject.id);
    const scope: CommentScope = kind === 'photo' ? { type: 'photo', photoId: subject.id } : { type: 'task', taskId: subject.id };
    return { scope, project, assigneeId: facts.assignee_id };
  }

  /** The comment when the caller can see its project; another project's or workspace's is a 404. */
  private async comment(db: Executor, actor: Actor, id: string, lock: boolean): Promise<{ row: CommentRow; project: ProjectAccessFacts }> {
    const row = !isId('comment', id) ? undefined
      : lock ? await this.comments.getForUpdate(db, actor.workspaceId, id)
      : await this.comments.get(db, actor.workspaceId, id);
    if (!row) return notFound('comment', id);
    return { row, project: await this.inProject(db, actor, row.project_id, 'view', 'comment', id, false) };
  }

  /** ProjectAccess, with its 404 naming what was asked for (a photo, task or comment) rather than the project. */
  private async inProject(db: Executor, actor: Actor, projectId: string, action: ProjectAction, kind: string, id: string, lock: boolean): Promise<ProjectAccessFacts> {
    return this.access.requireProjectOf(db, actor, projectId, { kind, id }, action, lock ? 'share' : 'none');
  }
}

const versionOf = (c: CommentRow) => ({ id: c.id, updated_at: c.updated_at.toISOString() });

/** What the schema cannot say cheaply: not only white space, and no NUL (PostgreSQL text cannot hold it). */
function checkBody(body: string): void {
  if (body.trim() === '') validationFailed([{ path: 'body.body', message: 'must not be only white space' }]);
  if (body.includes('\u0000')) validationFailed([{ path: 'body.body', message: 'must not contain NUL characters' }]);
}
