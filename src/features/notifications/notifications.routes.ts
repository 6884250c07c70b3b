import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { Notification, NotificationIdParams, NotificationListQuery, ReadAllResult } from './notifications.schemas.ts';
import type { NotificationsService } from './notifications.service.ts';

const tags = ['Notifications'];

export function notificationRoutes(app: App, notifications: NotificationsService): void {
  app.get('/v1/notifications', {
    schema: {
      tags, summary: 'List your notifications (newest first)',
      description: 'The caller\'s own: mentions, tasks assigned to them, comments on their tasks. `unread=true` for the unread ones.',
      querystring: NotificationListQuery, response: { 200: Page(Notification, 'NotificationPage') },
    },
  }, (req) => notifications.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.post('/v1/notifications/:id/read', {
    schema: { tags, summary: 'Mark one of your notifications read (idempotent)', params: NotificationIdParams, response: { 200: Notification } },
  }, (req) => notifications.markRead(req.actor, req.params.id));

  app.post('/v1/notifications/read-all', {
    schema: { tags, summary: 'Mark all your notifications read', response: { 200: ReadAllResult } },
  }, (req) => notifications.markAllRead(req.actor));
}
