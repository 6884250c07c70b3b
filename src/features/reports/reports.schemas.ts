import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { NonBlankString, Nullable, StringEnum } from '../../http/schema-types.ts';

const Timestamp = Type.String({ format: 'date-time' });
const IdPattern = (prefix: string) => `^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`;

export const TITLE_MAX = 200;
export const MAX_PHOTO_IDS = 1000;
export const MAX_TAG_IDS = 50;

const Layout = Type.Integer({ enum: [1, 2, 4], description: 'Photos per page, at most: 1, 2 (stacked) or 4 (a 2 × 2 grid). Days follow one another on a page, each under its date.' });
const TimeZone = Type.String({
  minLength: 1, maxLength: 64,
  description: 'IANA time zone (`Europe/Paris`, `America/Chicago`) every time and date of the report is printed in. Without one, each photo\'s time '
    + 'and day are printed in the photo\'s own zone (`captured_at_time_zone`: where it was taken), and the other times in the project\'s zone '
    + '(from its coordinates, else the workspace\'s `time_zone`).',
});
const PageSize = StringEnum(['letter', 'a4'], { description: 'US Letter or ISO A4.' });

export const ReportOptionsInput = Type.Object({
  layout: Type.Optional({ ...Layout, default: 2 }),
  time_zone: Type.Optional(TimeZone),
  page_size: Type.Optional({ ...PageSize, default: 'letter' }),
  include_annotations: Type.Optional(Type.Boolean({ default: true, description: 'Print a photo\'s annotated render instead of the plain photo when it has one.' })),
  include_tasks: Type.Optional(Type.Boolean({ default: false, description: 'Add a section with the project\'s open and completed tasks.' })),
  include_comments: Type.Optional(Type.Boolean({ default: false, description: 'Add a section with the comments on the project, its tasks and the photos in the report.' })),
}, { additionalProperties: false, title: 'ReportOptionsInput' });

export const ReportCreate = Type.Object({
  title: NonBlankString({ maxLength: TITLE_MAX, description: 'Printed on the cover and used as the file name; not only white space.' }),
  photo_ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), {
    minItems: 1, maxItems: MAX_PHOTO_IDS, uniqueItems: true, description: `pho_… ids of the project's photos (up to ${MAX_PHOTO_IDS}); every one must belong to the project.`,
  })),
  captured_after: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; photos taken at or after it.' })),
  captured_before: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; photos taken before it.' })),
  tag_ids: Type.Optional(Type.Array(Type.String({ pattern: IdPattern('tag') }), {
    minItems: 1, maxItems: MAX_TAG_IDS, uniqueItems: true, description: 'tag_… ids: photos with at least one of these tags.',
  })),
  options: Type.Optional(ReportOptionsInput),
}, {
  additionalProperties: false, title: 'ReportCreate',
  description: 'The filters combine (a photo must pass each one given); with none, every photo of the project. Only processed photos are printed.',
});
export type ReportCreateInput = Static<typeof ReportCreate>;

const ReportOptions = Type.Object({
  layout: Layout,
  time_zone: Nullable(TimeZone),
  page_size: PageSize,
  include_annotations: Type.Boolean(),
  include_tasks: Type.Boolean(),
  include_comments: Type.Boolean(),
}, { title: 'ReportOptions', description: 'The options as applied (defaults filled in).' });

const ReportSelection = Type.Object({
  photo_ids: Nullable(Type.Array(Type.String())),
  captured_after: Nullable(Type.String({ format: 'date-time' })),
  captured_before: Nullable(Type.String({ format: 'date-time' })),
  tag_ids: Nullable(Type.Array(Type.String())),
}, { title: 'ReportSelection', description: 'The filters as requested; null where none was given.' });

export const Report = Type.Object({
  id: Type.String({ description: 'rep_…' }),
  project_id: Type.String(),
  title: Type.String(),
  status: StringEnum(['queued', 'processing', 'finished', 'failed'], {
    description: '`queued` → `processing` → `finished` (the PDF is ready: `url`) or `failed` (`error` says why).',
  }),
  error: Nullable(Type.String({ description: 'Why rendering failed; null otherwise.' })),
  options: ReportOptions,
  selection: ReportSelection,
  photo_count: Nullable(Type.Integer({ description: 'Photos in the PDF; null until finished.' })),
  page_count: Nullable(Type.Integer({ description: 'Pages of the PDF; null until finished.' })),
  byte_size: Nullable(Type.Integer({ description: 'Size of the PDF in bytes; null until finished.' })),
  url: Nullable(Type.String({ description: 'Signed, expiring URL of the PDF (no bearer key needed); null until finished.' })),
  requested_by: Type.String({ description: 'usr_… of who asked for it.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
  finished_at: Nullable(Type.String({ format: 'date-time', description: 'When it finished or failed.' })),
}, { title: 'Report' });
export type ReportView = Static<typeof Report>;

export const ReportIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'rep_…' }) });

export const ReportListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  status: Type.Optional(StringEnum(['queued', 'processing', 'finished', 'failed'])),
}, { additionalProperties: false });
export type ReportListFilters = Static<typeof ReportListQuery>;
