import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../http/schema-types.ts';
import { Comment } from '../comments/comments.schemas.ts';
import { Document } from '../documents/documents.schemas.ts';
import { Photo } from '../photos/photos.schemas.ts';
import { Project } from '../projects/projects.schemas.ts';
import { Report } from '../reports/reports.schemas.ts';
import { Tag } from '../tags/tags.schemas.ts';
import { Task } from '../tasks/tasks.schemas.ts';
import { User } from '../users/users.schemas.ts';
import { Video } from '../videos/videos.schemas.ts';

/** The resources sync carries, by the name `type` and the `types` filter use. */
export const SYNC_TYPES = ['project', 'photo', 'video', 'task', 'comment', 'document', 'report', 'tag', 'user'] as const;
export type SyncType = (typeof SYNC_TYPES)[number];

export const SYNC_DEFAULT_LIMIT = 500;
export const SYNC_MAX_LIMIT = 1000;

export const SyncQuery = Type.Object({
  cursor: Type.Optional(Type.String({
    minLength: 1, maxLength: 1000,
    description: 'The `next_cursor` of your previous sync. Without it: a full sync (the current state as upserts, then changes).',
  })),
  types: Type.Optional(Type.String({
    minLength: 1, maxLength: 200, pattern: `^(${SYNC_TYPES.join('|')})(,(${SYNC_TYPES.join('|')}))*$`,
    description: `Comma-separated: only these resources (${SYNC_TYPES.map((t) => `\`${t}\``).join(', ')}). Keep the same filter for the whole life of a cursor.`,
  })),
  project_id: Type.Optional(Type.String({
    pattern: '^prj_[0-9a-hjkmnp-tv-z]{26}$',
    description: 'prj_…: only this project and its content (no tags or users). Keep the same filter for the whole life of a cursor.',
  })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SYNC_MAX_LIMIT, default: SYNC_DEFAULT_LIMIT, description: `Changes per page, 1..${SYNC_MAX_LIMIT}.` })),
}, { additionalProperties: false });
export type SyncFilters = Static<typeof SyncQuery>;

export const SyncChange = Type.Object({
  seq: Type.Integer({ minimum: 1, description: 'Position in the workspace\'s change sequence: the order in which changes committed. Changes that a visibility change expands into share its seq.' }),
  type: StringEnum(SYNC_TYPES, { description: 'The kind of resource.' }),
  id: Type.String({ description: 'The resource\'s id (`prj_…`, `pho_…`, …).' }),
  op: StringEnum(['upsert', 'delete'] as const, {
    description: '`upsert`: store `object` under `id` (it is new or changed, or newly visible to you). `delete`: forget `id` (deleted, or no longer visible to you).',
  }),
  object: Type.Optional(Type.Union([Project, Photo, Video, Task, Comment, Document, Report, Tag, User], {
    description: 'With `upsert`: the resource as it is now, exactly as its own GET returns it (the schema `type` names). Signed URLs in it expire as usual.',
  })),
}, { title: 'SyncChange' });
export type SyncChangeView = Static<typeof SyncChange>;

export const SyncPage = Type.Object({
  changes: Type.Array(SyncChange),
  next_cursor: Type.String({ description: 'Where to continue: pass it as `cursor` next time. Always present: store it with your data.' }),
  has_more: Type.Boolean({ description: 'True when more changes are waiting: ask again with `next_cursor` right away.' }),
}, { title: 'SyncPage' });
export type SyncPageView = Static<typeof SyncPage>;
