import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';

const Timestamp = Type.String({ format: 'date-time' });
const IdPattern = (prefix: string) => `^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`;

export const MAX_PHOTO_IDS = 10_000;
export const MAX_TAG_IDS = 50;

export const ExportCreate = Type.Object({
  photo_ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), {
    minItems: 1, maxItems: MAX_PHOTO_IDS, uniqueItems: true, description: `pho_… ids of the project's photos (up to ${MAX_PHOTO_IDS}); every one must belong to the project.`,
  })),
  captured_after: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; photos taken at or after it.' })),
  captured_before: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; photos taken before it.' })),
  tag_ids: Type.Optional(Type.Array(Type.String({ pattern: IdPattern('tag') }), {
    minItems: 1, maxItems: MAX_TAG_IDS, uniqueItems: true, description: 'tag_… ids: photos with at least one of these tags.',
  })),
}, {
  additionalProperties: false, title: 'ExportCreate',
  description: 'The filters combine (a photo must pass each one given); with none (`{}`), every photo of the project. Only processed photos are exported.',
});
export type ExportCreateInput = Static<typeof ExportCreate>;

const ExportSelection = Type.Object({
  photo_ids: Nullable(Type.Array(Type.String())),
  captured_after: Nullable(Type.String({ format: 'date-time' })),
  captured_before: Nullable(Type.String({ format: 'date-time' })),
  tag_ids: Nullable(Type.Array(Type.String())),
}, { title: 'ExportSelection', description: 'The filters as requested; null where none was given.' });

export const EXPORT_STATUSES = ['queued', 'processing', 'finished', 'failed'] as const;

export const Export = Type.Object({
  id: Type.String({ description: 'exp_…' }),
  project_id: Type.String(),
  status: StringEnum(EXPORT_STATUSES, {
    description: '`queued` → `processing` → `finished` (the ZIP is ready: `url`) or `failed` (`error` says why).',
  }),
  error: Nullable(Type.String({ description: 'Why the export failed; null otherwise.' })),
  selection: ExportSelection,
  file_name: Type.String({ description: 'What the ZIP downloads as: the project\'s name and the day it was asked for (`Tower A photos 2026-11-25.zip`).' }),
  photo_count: Nullable(Type.Integer({ description: 'Photos in the ZIP; null until finished.' })),
  byte_size: Nullable(Type.Integer({ description: 'Size of the ZIP in bytes; null until finished.' })),
  url: Nullable(Type.String({ description: 'Signed, expiring URL of the ZIP (no bearer key needed); null until finished.' })),
  requested_by: Type.String({ description: 'usr_… of who asked for it.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Nullable(Type.String({ format: 'date-time', description: 'When it finished or failed.' })),
  expires_at: Nullable(Type.String({
    format: 'date-time',
    description: 'When the export and its ZIP will be deleted: `JOBSITE_EXPORT_RETENTION_DAYS` (default 7) after it finished or failed. '
      + 'Null while it runs, and where the server keeps exports until they are deleted.',
  })),
}, { title: 'Export' });
export type ExportView = Static<typeof Export>;

export const ExportIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'exp_…' }) });

export const ExportListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  status: Type.Optional(StringEnum(EXPORT_STATUSES)),
}, { additionalProperties: false });
export type ExportListFilters = Static<typeof ExportListQuery>;
