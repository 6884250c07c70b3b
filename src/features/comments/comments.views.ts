import type { Selectable } from 'kysely';
import type { CommentsTable } from '../../db/schema.ts';
import type { CommentView } from './comments.schemas.ts';

export type CommentRow = Selectable<CommentsTable>;
export type { CommentView };

/** The id of what a comment is on: its photo, its task, or else its project. */
export const subjectIdOf = (c: Pick<CommentRow, 'subject_type' | 'project_id' | 'photo_id' | 'task_id'>): string =>
  c.subject_type === 'photo' ? c.photo_id! : c.subject_type === 'task' ? c.task_id! : c.project_id;

/** A comment as the API returns it, and as its events carry it. */
export const toCommentView = (c: CommentRow): CommentView => ({
  id: c.id,
  subject: { type: c.subject_type, id: subjectIdOf(c) },
  project_id: c.project_id,
  author_id: c.author_id,
  body: c.body,
  mentions: c.mentions.map((m) => ({ user_id: m.user_id, handle: m.handle })),
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
});
