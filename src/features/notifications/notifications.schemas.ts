import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';

export const NOTIFICATION_KINDS = ['mention', 'task_assigned', 'task_comment'] as const;

export const Notification = Type.Object({
  id: Type.String({ description: 'ntf_…' }),
  user_id: Type.String({ description: 'Who is notified (always the caller, in the API).' }),
  kind: StringEnum(NOTIFICATION_KINDS, {
    description: '`mention`: a comment mentioned the user; `task_assigned`: a task was assigned to them; `task_comment`: someone commented on a task assigned to them.',
  }),
  actor_id: Nullable(Type.String({ description: 'Who caused it (null once that user is gone).' })),
  project_id: Nullable(Type.String()),
  subject: Type.Object({
    type: StringEnum(['project', 'photo', 'task', 'comment']),
    id: Type.String(),
  }, { description: 'What it is about: the task assigned, or the comment that mentions or comments.' }),
  comment_id: Nullable(Type.String({ description: 'The comment behind a `mention` or `task_comment`.' })),
  read_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
}, { title: 'Notification' });
export type NotificationView = Static<typeof Notification>;

export const NotificationListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  unread: Type.Optional(Type.Boolean({ description: '`true`: only those not yet read.' })),
}, { additionalProperties: false });
export type NotificationListFilters = Static<typeof NotificationListQuery>;

export const NotificationIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'ntf_…' }) });

export const ReadAllResult = Type.Object({
  marked: Type.Integer({ description: 'How many notifications were unread and are now read.' }),
}, { title: 'NotificationsReadAll' });
