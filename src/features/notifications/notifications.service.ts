import type { Selectable } from 'kysely';
import type { Db, Executor } from '../../db/database.ts';
import type { NotificationKind, NotificationsTable } from '../../db/schema.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import type { EventLog } from '../events/events.log.ts';
import type { NotificationListFilters, NotificationView } from './notifications.schemas.ts';

type NotificationRow = Selectable<NotificationsTable>;

export const toNotificationView = (n: NotificationRow): NotificationView => ({
  id: n.id,
  user_id: n.user_id,
  kind: n.kind,
  actor_id: n.actor_id,
  project_id: n.project_id,
  subject: { type: n.subject_type, id: n.subject_id },
  comment_id: n.comment_id,
  read_at: n.read_at?.toISOString() ?? null,
  created_at: n.created_at.toISOString(),
});

export interface NewNotification {
  workspaceId: string;
  /** Who is notified. */
  userId: string;
  kind: NotificationKind;
  /** Who caused it; nobody is notified of their own doing (notify returns null then). */
  actorId: string;
  projectId: string | null;
  subject: { type: 'project' | 'photo' | 'task' | 'comment'; id: string };
  commentId?: string | null;
}

/**
 * Notifications: each mention, each task assigned to someone, and each comment on a task
 * assigned to someone notifies that user (never the actor themself). Features call `notify`
 * inside the transaction of the change that causes it; the row and its `notification.created`
 * event commit with that change.
 */
export class Notifier {
  constructor(private readonly events: EventLog) {}

  async notify(tx: Executor, n: NewNotification): Promise<NotificationView | null> {
    if (n.userId === n.actorId) return null;
    const row: NotificationRow = {
      id: newId('notification'),
      workspace_id: n.workspaceId,
      user_id: n.userId,
      kind: n.kind,
      actor_id: n.actorId,
      project_id: n.projectId,
      subject_type: n.subject.type,
      subject_id: n.subject.id,
      comment_id: n.commentId ?? null,
      read_at: null,
      created_at: new Date(),
    };
    const view = toNotificationView(row);
    await this.events.emit(tx, {
      workspaceId: n.workspaceId, event: 'notification.created', projectId: n.projectId, data: view,
      alongWith: tx.insertInto('notifications').values(row),
    });
    return view;
  }
}

/** The caller's own notifications: nobody reads or marks anyone else's (another user's id is a 404). */
export class NotificationsService {
  constructor(private readonly db: Db) {}

  async list(actor: Actor, filters: NotificationListFilters & { limit: number }): Promise<PageOf<NotificationView>> {
    const after = decodeCursor(filters.cursor, 'id', 1, ([id]) => typeof id === 'string');
    let q = this.db.selectFrom('notifications').selectAll()
      .where('workspace_id', '=', actor.workspaceId).where('user_id', '=', actor.userId);
    if (filters.unread === true) q = q.where('read_at', 'is', null);
    if (filters.unread === false) q = q.where('read_at', 'is not', null);
    if (after) q = q.where('id', '<', after[0] as string);
    const rows = await q.orderBy('id', 'desc').limit(filters.limit + 1).execute();
    return toPage(rows, filters.limit, 'id', (n) => [n.id], toNotificationView);
  }

  /** Idempotent: reading a read notification keeps its first read_at. */
  async markRead(actor: Actor, id: string): Promise<NotificationView> {
    if (!isId('notification', id)) return notFound('notification', id);
    const row = await this.db.updateTable('notifications')
      .set((eb) => ({ read_at: eb.fn.coalesce('read_at', eb.fn<Date>('now', [])) }))
      .where('id', '=', id).where('workspace_id', '=', actor.workspaceId).where('user_id', '=', actor.userId)
      .returningAll().executeTakeFirst();
    return row ? toNotificationView(row) : notFound('notification', id);
  }

  async markAllRead(actor: Actor): Promise<{ marked: number }> {
    const result = await this.db.updateTable('notifications').set({ read_at: new Date() })
      .where('workspace_id', '=', actor.workspaceId).where('user_id', '=', actor.userId).where('read_at', 'is', null)
      .executeTakeFirst();
    return { marked: Number(result.numUpdatedRows) };
  }
}
