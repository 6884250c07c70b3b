/**
 * Every kind of event the service emits, now or once its feature lands. `GET /v1/event-types`
 * lists them, webhook endpoints subscribe to them (exactly, by `resource.*`, or `*`), and the
 * OpenAPI document describes each one's payload. A feature adds its kinds here, then calls
 * `events.emit(tx, …)` inside the transaction of the change.
 */
export const EVENT_TYPES = {
  'project.created': 'A project was created. `data` is the project.',
  'project.updated': 'A project\'s fields, tags, cover photo or crew changed. `data` is the project after the change.',
  'project.archived': 'A project was archived. `data` is the project.',
  'project.restored': 'An archived project was restored. `data` is the project.',
  'project.deleted': 'A project was deleted, with its content. `data` is the project as it was.',
  'photo.created': 'A photo was uploaded and processed (its variants exist). `data` is the photo, with `id` and `url`; its `captured_at`, `captured_at_source` and `captured_at_time_zone` are as processing settled them.',
  'photo.updated': 'A photo\'s caption, time, coordinates, tags or annotations changed. `data` is the photo.',
  'photo.deleted': 'A photo was deleted. `data` is the photo as it was.',
  'photo.assigned': 'A photo was filed under a project: by its GPS position (a project\'s geofence, or the nearest project) once processed, or moved by a user. ' +
    '`data` is `{photo, project_id, previous_project_id, assigned_by, user_id}`; `assigned_by` is `geofence`, `nearest` or `user`.',
  'video.created': 'A video was uploaded and processed. `data` is the video.',
  'video.updated': 'A video\'s caption, time or coordinates changed. `data` is the video.',
  'video.deleted': 'A video was deleted. `data` is the video as it was.',
  'task.created': 'A task was created. `data` is the task.',
  'task.assigned': 'A task was assigned, on creation or by a change of assignee. `data` is the task.',
  'task.completed': 'A task was completed. `data` is the task.',
  'task.reopened': 'A completed task was reopened. `data` is the task.',
  'task.updated': 'A task\'s fields changed. `data` is the task.',
  'task.deleted': 'A task was deleted. `data` is the task as it was.',
  'comment.created': 'A comment was posted on a project, photo or task. `data` is the comment, with its `mentions`.',
  'comment.updated': 'A comment was edited. `data` is the comment.',
  'comment.deleted': 'A comment was deleted. `data` is the comment as it was.',
  'document.uploaded': 'A document was uploaded. `data` is the document, with `id` and `url`.',
  'document.updated': 'A document was renamed. `data` is the document.',
  'document.deleted': 'A document was deleted. `data` is the document as it was.',
  'report.finished': 'A PDF report finished rendering. `data` is the report, with `id` and `url`.',
  'report.failed': 'A PDF report could not be rendered. `data` is the report, with `error`.',
  'share_link.created': 'A share link was made: a public page of chosen photos or a report. `data` is the share link, with `id` and `url`.',
  'share_link.revoked': 'A share link was turned off (its page answers 410 from then on). `data` is the share link, with `revoked_at` and `revoked_by`.',
  'export.finished': 'A ZIP export of photos is ready. `data` is the export, with `id`, `url` (signed, for 24 h at least), `photo_count` and `byte_size`.',
  'export.failed': 'A ZIP export could not be written (an original missing from storage, or the last retry of any other error). `data` is the export, with `error`.',
  'tag.created': 'A tag was created. `data` is the tag.',
  'tag.updated': 'A tag was renamed or recoloured. `data` is the tag. The projects and photos carrying it get a new `updated_at` but no event of their own.',
  'tag.deleted': 'A tag was deleted, which removed it from every project and photo. `data` is the tag as it was. Those projects and photos get a new `updated_at` but no event of their own.',
  'user.added': 'A user was added to the workspace. `data` is the user.',
  'user.updated': 'A user\'s name, e-mail, handle, role or status changed (including reactivation). `data` is the user.',
  'user.removed': 'A user was deactivated: their access and keys stopped. `data` is the user.',
  'notification.created': 'A user was notified (mention, assignment, comment on their task). `data` carries `user_id`, the kind and the subject.',
  'webhook.ping': 'A test event sent to one endpoint by `POST /v1/webhooks/{id}/ping`.',
  'webhook.disabled': 'A webhook endpoint was disabled (it answered 410, or failed for 5 days). Sent to the workspace\'s other endpoints. `data` is the endpoint.',
} as const satisfies Record<string, string>;

export type EventType = keyof typeof EVENT_TYPES;

export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

export const isEventType = (name: string): name is EventType => Object.hasOwn(EVENT_TYPES, name);

/**
 * Events for the operator alone (docs/developer-program.md): recorded in the system workspace and
 * delivered only to the operator webhook. Never listed by `GET /v1/event-types`, and no workspace
 * endpoint can subscribe to them.
 */
export const OPERATOR_EVENT_TYPES = {
  'developer_application.created': 'Someone applied to the developer program. `data` is the application as the operator sees it.',
  'developer_application.approved': 'The operator approved an application (its workspace, admin and key exist). `data` is the application after the decision.',
  'developer_application.rejected': 'The operator rejected an application. `data` is the application after the decision, with `rejection_reason`.',
} as const satisfies Record<string, string>;

export type OperatorEventType = keyof typeof OPERATOR_EVENT_TYPES;

/** The subscription patterns an event matches: itself, its resource wildcard, and `*`. */
export function patternsMatching(event: EventType | OperatorEventType): string[] {
  return ['*', `${event.slice(0, event.indexOf('.'))}.*`, event];
}

/** Whether `pattern` is something an endpoint may subscribe to. */
export function isValidPattern(pattern: string): boolean {
  if (pattern === '*' || isEventType(pattern)) return true;
  const wildcard = /^([a-z_]+)\.\*$/.exec(pattern);
  return wildcard !== null && EVENT_TYPE_NAMES.some((name) => name.startsWith(`${wildcard[1]}.`));
}
