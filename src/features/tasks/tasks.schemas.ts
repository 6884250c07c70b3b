import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { NonBlankString, Nullable, StringEnum } from '../../http/schema-types.ts';

// PostgreSQL text cannot hold NUL characters, so free text refuses them up front (400, not 500).
const NO_NUL = '^[^\\u0000]*$';
const Timestamp = Type.String({ format: 'date-time' });
const IdPattern = (prefix: string) => `^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`;

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 10_000;
export const MAX_PHOTO_IDS = 100;

const Title = NonBlankString({
  maxLength: TITLE_MAX,
  description: `1..${TITLE_MAX} characters, not only whitespace; stored trimmed.`,
});
const Description = Type.String({ maxLength: DESCRIPTION_MAX, pattern: NO_NUL, description: `Free text, up to ${DESCRIPTION_MAX.toLocaleString('en')} characters.` });
const AssigneeId = Type.String({
  pattern: IdPattern('usr'),
  description: 'usr_… of an active user of the workspace who can see the project (a restricted user must be on the crew or have created the project); null for nobody.',
});
const DueAt = Type.String({ format: 'date-time', description: 'RFC 3339; stored in UTC with millisecond precision.' });
const PhotoIds = Type.Array(Type.String({ pattern: IdPattern('pho') }), {
  maxItems: MAX_PHOTO_IDS, uniqueItems: true,
  description: `Up to ${MAX_PHOTO_IDS} photos of the same project, in the order given (kept as sent).`,
});

export const TaskStatusSchema = StringEnum(['open', 'completed']);

export const Task = Type.Object({
  id: Type.String({ description: 'tsk_…' }),
  project_id: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  status: TaskStatusSchema,
  assignee_id: Nullable(Type.String({ description: 'usr_… of the user the task is assigned to, or null.' })),
  due_at: Nullable(Timestamp),
  completed_at: Nullable(Type.String({ format: 'date-time', description: 'When it was completed; null while open.' })),
  completed_by: Nullable(Type.String({ description: 'usr_… of who completed it; null while open.' })),
  photo_ids: Type.Array(Type.String(), { description: 'Attached photos (pho_…), in the order they were given. A deleted photo drops out.' }),
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Type.String({ format: 'date-time', description: 'Moves on every change, including completion and reopening.' }),
}, { title: 'Task' });
export type TaskView = Static<typeof Task>;

export const TaskCreate = Type.Object({
  title: Title,
  description: Type.Optional(Nullable(Description)),
  assignee_id: Type.Optional(Nullable(AssigneeId)),
  due_at: Type.Optional(Nullable(DueAt)),
  photo_ids: Type.Optional(PhotoIds),
}, { additionalProperties: false, title: 'TaskCreate', description: 'A new task; it starts open. The caller is recorded as `created_by`.' });
export type TaskCreateInput = Static<typeof TaskCreate>;

export const TaskPatch = Type.Object({
  title: Type.Optional(Title),
  description: Type.Optional(Nullable(Description)),
  assignee_id: Type.Optional(Nullable(AssigneeId)),
  due_at: Type.Optional(Nullable(DueAt)),
  photo_ids: Type.Optional(PhotoIds),
}, {
  additionalProperties: false, title: 'TaskPatch',
  description: 'JSON merge patch: a missing field is unchanged, `null` clears it; `photo_ids` is replaced whole. ' +
    'Status changes go through /complete and /reopen.',
});
export type TaskPatchInput = Static<typeof TaskPatch>;

export const TaskSort = StringEnum(['created_at', 'due_at'], {
  default: 'created_at',
  description: '`created_at` (newest first, the default) or `due_at` (soonest due first; tasks without a due date last). A cursor works only with the sort it came from.',
});

export const TaskListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  project_id: Type.Optional(Type.String({ pattern: IdPattern('prj'), description: 'prj_…' })),
  assignee_id: Type.Optional(Type.String({ pattern: IdPattern('usr'), description: 'usr_…: tasks assigned to this user.' })),
  status: Type.Optional(TaskStatusSchema),
  due_before: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; tasks due before it (tasks without a due date never match).' })),
  due_after: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; tasks due at or after it (tasks without a due date never match).' })),
  sort: Type.Optional(TaskSort),
}, { additionalProperties: false });
export type TaskListFilters = Static<typeof TaskListQuery>;

export const ProjectTaskListQuery = Type.Omit(TaskListQuery, ['project_id'], { additionalProperties: false });

export const TaskIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'tsk_…' }) });
