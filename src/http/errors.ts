import { Type } from '@sinclair/typebox';

/** An error the API answers with a problem+json body (RFC 9457). `code` is stable and snake_case. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
  }
}

export interface FieldError {
  path: string;
  message: string;
}

export const problemType = (code: string) => `urn:jobsite:problem:${code}`;

export const badRequest = (code: string, detail: string, errors?: FieldError[]): never => {
  throw new ApiError(400, code, 'Bad request', detail, errors ? { errors } : {});
};

export const validationFailed = (errors: FieldError[], detail = 'The request is not valid.'): never => {
  throw new ApiError(400, 'validation_failed', 'Validation failed', detail, { errors });
};

/** Another workspace's object answers exactly like a missing one. */
export const notFound = (kind: string, id: string): never => {
  throw new ApiError(404, 'not_found', 'Not found', `No ${kind} with id "${id}" exists in this workspace.`);
};

export const forbidden = (detail: string, code = 'forbidden'): never => {
  throw new ApiError(403, code, 'Forbidden', detail);
};

export const conflict = (code: string, detail: string): never => {
  throw new ApiError(409, code, 'Conflict', detail);
};

export const unprocessable = (code: string, detail: string, errors?: FieldError[]): never => {
  throw new ApiError(422, code, 'Unprocessable content', detail, errors ? { errors } : {});
};

export const preconditionFailed = (detail: string): never => {
  throw new ApiError(412, 'precondition_failed', 'Precondition failed', detail);
};

/** The problem+json schema shared by every error response in the OpenAPI document. */
export const Problem = Type.Object({
  type: Type.String({ description: 'A URI naming the problem type: `urn:jobsite:problem:<code>`.' }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  code: Type.String({ description: 'Stable, snake_case error code for programs to branch on.' }),
  request_id: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({
    path: Type.String({ description: 'Where the problem is, e.g. `body.address.city` or `query.limit`.' }),
    message: Type.String(),
  }))),
}, { $id: 'Problem', additionalProperties: true, description: 'An RFC 9457 problem document.' });

/** Every error code the API answers with, for the reference documentation. */
export const ERROR_CODES: Record<string, string> = {
  validation_failed: '400: parameters or body fields are invalid; `errors[]` lists each one (up to 20).',
  malformed_json: '400: the body is not valid JSON.',
  invalid_cursor: '400: the pagination cursor is not one this list issued.',
  invalid_header: '400: a request header has an invalid value.',
  invalid_url: '400: the URL is not validly percent-encoded.',
  invalid_utf8: '400: the body, or a percent-encoded part of the URL, is not valid UTF-8 (nothing is silently replaced).',
  empty_file: '400: the uploaded file has no bytes.',
  missing_file: '400: a multipart upload has no `file` part.',
  bad_request: '400 (or another 4xx): the request is malformed in a way no more specific code covers.',
  url_not_allowed: '400: the webhook URL is not http(s), does not resolve, or reaches a non-public address the operator has not allowed; `detail` says which.',
  replay_too_large: '400: more events match the replay range than one request may queue; replay a narrower range.',
  session_required: '400: the endpoint acts on the session of the cookie (`/v1/sessions/current`), but the request was made with an API key.',
  missing_api_key: '401: no `Authorization: Bearer` header (and no session cookie).',
  malformed_api_key: '401: the bearer token is not shaped like a Jobsite key (`jsk_…`).',
  unknown_api_key: '401: no such key.',
  revoked_api_key: '401: the key was revoked, or its user deactivated.',
  expired_api_key: '401: the key is past its `expires_at`.',
  rotated_api_key: '401: this secret was replaced by a rotation of the key and its grace period is over; use the new secret.',
  invalid_credentials: '401: sign-in failed: the e-mail address or the password is wrong (the same answer for an unknown address, a deactivated user, or one without a password yet).',
  invalid_session: '401: the session cookie names no live session (signed out, ended, or its user deactivated); sign in again.',
  session_expired: '401: the session was idle for 30 days and has ended; sign in again.',
  csrf_token_missing: '403: a request that writes with the session cookie did not send `X-CSRF-Token`.',
  csrf_token_invalid: '403: the `X-CSRF-Token` is not the session\'s (read it from `GET /v1/sessions/current`).',
  forbidden: '403: your role does not allow this action on a visible object.',
  read_only_key: '403: the key is read-only and the request writes.',
  invalid_signature: '403: a signed file URL was altered or not issued by this server; use URLs exactly as the API returns them.',
  url_expired: '403: a signed file URL is past its `expires`; fetch the object from the API again for a fresh URL.',
  not_found: '404: no such object in your workspace.',
  route_not_found: '404: no such endpoint.',
  token_not_found: '404: the invitation or reset link is not one this server issued.',
  method_not_allowed: '405: the endpoint exists but not with this method; see `Allow`.',
  not_acceptable: '406: the endpoint cannot answer in a type the `Accept` header allows.',
  request_timeout: '408: the request was not received in time; the connection is closed.',
  conflict: '409: the change conflicts with the current state.',
  email_taken: '409: another user of the workspace has this e-mail address.',
  handle_taken: '409: another user of the workspace has this handle.',
  tag_name_taken: '409: another tag of the workspace has this name (regardless of case); `tag_id` names it.',
  webhook_disabled: '409: the webhook endpoint is disabled; enable it before pinging it, retrying or replaying.',
  report_not_ready: '409: the report is not finished (queued, processing or failed), so it has no PDF yet (to download or to share).',
  export_not_ready: '409: the export is not finished (queued, processing or failed), so it has no ZIP yet.',
  idempotency_key_in_use: '409: a request with this Idempotency-Key is still being processed.',
  idempotency_key_secret: '409: the request with this Idempotency-Key already succeeded, but its one-time secret is not replayed; `resource_id` names what it created.',
  api_key_revoked: '409: the API key is revoked, so it cannot be rotated.',
  api_key_expired: '409: the API key has expired, so it cannot be rotated.',
  application_pending: '409: this e-mail address already has a pending developer application.',
  token_expired: '410: the invitation (72 h) or reset link (1 h) has expired, or its user was deactivated; ask for a new one.',
  token_used: '410: the invitation or reset link was already used (each works once).',
  sync_cursor_expired: '410: the sync cursor is older than the deletes kept (30 days); start again without a cursor (a full sync) and replace what you stored.',
  precondition_failed: '412: the `If-Match` ETag no longer matches the object.',
  payload_too_large: '413: the body is larger than the limit.',
  uri_too_long: '414: a path segment (an id) is longer than any id can be.',
  unsupported_media_type: '415: the body has a content type this endpoint does not accept.',
  range_not_satisfiable: '416: the `Range` starts beyond the end of the file; `Content-Range: bytes */<size>` gives its size.',
  idempotency_key_reused: '422: the Idempotency-Key was used with a different request.',
  last_admin: '422: the change would leave the workspace without an active admin.',
  user_inactive: '422: the user is deactivated.',
  too_many_pixels: '422: the image declares more pixels than the server accepts (JOBSITE_PHOTO_MAX_PIXELS, default 100 MP); nothing was stored.',
  image_unreadable: '422: the file starts like an image but its header cannot be read; nothing was stored.',
  import_failed: '422: a `source_url` could not be fetched (refused address, error status, timeout, too large); `detail` says which.',
  tag_not_found: '422: a `tag_ids` entry names no tag of the workspace.',
  invalid_cover_photo: '422: `cover_photo_id` must name a processed photo of the same project.',
  assignee_not_found: '422: a task\'s `assignee_id` names no user of the workspace.',
  assignee_cannot_see_project: '422: a task\'s assignee is a restricted user who is not on the project\'s crew; add them to the crew first.',
  webhook_endpoint_limit_reached: '422: the workspace has as many webhook endpoints as it may (`limit` says how many; the operator sets it with `JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE`); delete one first.',
  photo_not_in_project: '422: a `photo_ids` entry is not a photo of the project (the task\'s, or the one a report, export or share link is made of); `detail` names it.',
  report_not_in_project: '422: a share link\'s `report_id` names no report of the project.',
  share_link_content: '422: a share link shares photos or a report: give exactly one of `photo_ids` and `report_id`.',
  rate_limited: '429: too many requests for this key; see `Retry-After`.',
  sign_in_rate_limited: '429: too many failed sign-ins for this e-mail address or from your address (15-minute windows); see `Retry-After`.',
  application_rate_limited: '429: too many developer applications from your address; see `Retry-After`.',
  headers_too_large: '431: the request headers are too large (16 KiB in all by default); the connection is closed.',
  internal_error: '500: something failed on our side; the request id helps us find it.',
  service_unavailable: '503: `/readyz` only: the database is unreachable.',
  shutting_down: '503: this server is shutting down; send the request again (see `Retry-After`), a new connection reaches one that is up.',
  database_unavailable: '503: the database is unreachable or did not answer in time; nothing was changed. Retry after `Retry-After` seconds.',
  storage_unavailable: '503: the file store is unreachable; nothing was stored. Retry after `Retry-After` seconds.',
};
