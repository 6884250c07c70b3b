import { ERROR_CODES, problemType } from './errors.ts';

/**
 * The error side of the OpenAPI document: one shared response per status (`components.responses`)
 * with the problem+json schema, the codes that status carries and a real example of each; which
 * statuses an operation can answer; and the response headers of the shared conventions.
 */

type Json = Record<string, any>;

const STATUSES: Record<string, { name: string; title: string; when: string }> = {
  400: { name: 'BadRequest', title: 'Bad request', when: 'The request is malformed or a parameter or field is invalid.' },
  401: { name: 'Unauthorized', title: 'Unauthorized', when: 'No valid API key or session (or, for sign-in, wrong credentials). Carries `WWW-Authenticate: Bearer`.' },
  403: { name: 'Forbidden', title: 'Forbidden', when: 'The key or session may not do this (or a cookie write lacks its CSRF token).' },
  404: { name: 'NotFound', title: 'Not found', when: 'No such object in your workspace (another workspace\'s objects answer the same).' },
  409: { name: 'Conflict', title: 'Conflict', when: 'The request conflicts with the current state.' },
  410: { name: 'Gone', title: 'Gone', when: 'The invitation or reset link was used or has expired; or a sync cursor is older than the deletes kept.' },
  412: { name: 'PreconditionFailed', title: 'Precondition failed', when: 'The `If-Match` ETag no longer matches: read the object again, then retry.' },
  413: { name: 'ContentTooLarge', title: 'Payload too large', when: 'The body is larger than this endpoint takes (JSON: 1 MB; uploads: the configured limit).' },
  414: { name: 'UriTooLong', title: 'URI too long', when: 'A path segment is longer than any id can be.' },
  415: { name: 'UnsupportedMediaType', title: 'Unsupported media type', when: 'The body\'s content type (or, for uploads, the sniffed file type) is not one this endpoint takes.' },
  416: { name: 'RangeNotSatisfiable', title: 'Range not satisfiable', when: 'The `Range` starts beyond the end of the file; `Content-Range: bytes */<size>` gives its size.' },
  422: { name: 'UnprocessableContent', title: 'Unprocessable content', when: 'The request is well-formed but cannot be carried out.' },
  429: { name: 'TooManyRequests', title: 'Too many requests', when: 'Rate limited: wait `Retry-After` seconds.' },
  '5XX': { name: 'ServerError', title: 'Server error', when: 'Our side failed (500) or a dependency is unavailable (503, with `Retry-After` when known). Safe to retry with the same `Idempotency-Key`.' },
};

/** A realistic `detail` per code, for the examples; codes not listed use their catalogue text. */
const DETAILS: Record<string, string> = {
  validation_failed: 'body.coordinates.lat must be <= 90',
  malformed_json: 'The body is not valid JSON: Unexpected end of JSON input.',
  missing_api_key: 'Send an API key as `Authorization: Bearer jsk_…`.',
  unknown_api_key: 'This API key is not known.',
  forbidden: 'Your role (restricted) may not delete projects.',
  read_only_key: 'This API key is read-only.',
  not_found: 'No project with id "prj_01jdq7v3m4k8x2c9f5t6b1n0zr" exists in this workspace.',
  email_taken: 'Another user of this workspace has the e-mail address sam@acme.example.',
  tag_name_taken: 'A tag named "Roofing" already exists.',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still being processed; retry later.',
  precondition_failed: 'The object changed: its ETag is now "Yq3Kx0bM2cQ8t1ZrV4wN9a".',
  payload_too_large: 'The body is larger than 1048576 bytes.',
  unsupported_media_type: 'Send the body as application/json.',
  idempotency_key_reused: 'This Idempotency-Key was used with a different request.',
  last_admin: 'The workspace would be left without an active admin.',
  rate_limited: 'This API key may make 600 requests a minute; try again in 12 s.',
  invalid_credentials: 'The e-mail address or the password is wrong.',
  sign_in_rate_limited: 'Too many failed sign-ins for this e-mail address; try again in 540 s.',
  sync_cursor_expired: 'This cursor is from before the oldest delete kept (30 days); sync again without a cursor.',
  internal_error: 'Something went wrong on our side. Quote the request id if you report it.',
  service_unavailable: 'The database is not reachable.',
};

const EXTRA_FIELDS: Record<string, Json> = {
  validation_failed: { errors: [{ path: 'body.coordinates.lat', message: 'must be <= 90' }] },
  tag_name_taken: { tag_id: 'tag_01jdq7w2n5p9r3s6t8v0x2z4b6' },
};

export const EXAMPLE_REQUEST_ID = 'req_01jdq8a4c6e8g0j2k4m6p8r0t2';

const statusOfCode = (text: string) => Number(/^(\d{3})/.exec(text)?.[1] ?? 400);
const statusKey = (status: number) => (status >= 500 ? '5XX' : String(status));

/** Error codes by status key ('400' … '5XX'), from the catalogue in errors.ts. */
export function codesByStatus(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [code, text] of Object.entries(ERROR_CODES)) {
    const key = statusKey(statusOfCode(text));
    out.set(key, [...(out.get(key) ?? []), code]);
  }
  return out;
}

export function problemExample(code: string): Json {
  const text = ERROR_CODES[code] ?? '';
  const status = statusOfCode(text);
  return {
    type: problemType(code),
    title: code === 'validation_failed' ? 'Validation failed' : STATUSES[statusKey(status)]?.title ?? 'Error',
    status,
    code,
    request_id: EXAMPLE_REQUEST_ID,
    detail: DETAILS[code] ?? text.replace(/^[^:]*:\s*/, '').replace(/^./, (c) => c.toUpperCase()),
    ...EXTRA_FIELDS[code],
  };
}

export const errorResponseRef = (status: string) => ({ $ref: `#/components/responses/${STATUSES[status]!.name}` });

/** `components.responses` (one per status) and `components.examples` (one per code). */
export function errorResponses(): { responses: Json; examples: Json } {
  const responses: Json = {};
  const examples: Json = {};
  const byStatus = codesByStatus();
  for (const [status, { name, when }] of Object.entries(STATUSES)) {
    const codes = byStatus.get(status) ?? [];
    for (const code of codes) examples[code] = { summary: `${code}: ${ERROR_CODES[code]!.replace(/^[^:]*:\s*/, '')}`, value: problemExample(code) };
    const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
    if (status === '401') headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
    if (status === '429') headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (status === '409' || status === '5XX') headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    responses[name] = {
      description: `${when} \`code\` is one of: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
      headers,
      content: {
        'application/problem+json': {
          schema: { $ref: '#/components/schemas/Problem' },
          examples: Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/examples/${c}` }])),
        },
      },
    };
  }
  return { responses, examples };
}

/** Single resources that check `If-Match` on their writes (services call checkIfMatch). */
export function honoursIfMatch(method: string, path: string): boolean {
  if (method === 'put') return path === '/v1/photos/{id}/annotations';
  if (method !== 'patch' && method !== 'delete') return false;
  if (!/^\/v1\/[a-z-]+\/\{id\}$/.test(path)) return false;
  // Revoking a key or a share link, ending a session and deleting a report or an export are unconditional.
  return !(method === 'delete' && ['/v1/api-keys/{id}', '/v1/reports/{id}', '/v1/exports/{id}', '/v1/sessions/{id}', '/v1/share-links/{id}'].includes(path));
}

/** The error statuses an operation can answer, by what the shared conventions and its inputs allow. */
export function errorStatusesOf(method: string, path: string, op: Json, authenticated: boolean): string[] {
  const hasParams = path.includes('{');
  const hasBody = Boolean(op.requestBody);
  const writes = method === 'post' || method === 'patch' || method === 'put';
  const statuses = ['400'];
  const signIn = path === '/v1/sessions' && method === 'post';
  if (authenticated || signIn) statuses.push('401');
  statuses.push('403');
  if (hasParams) statuses.push('404');
  // A report's or an export's download answers 409 until its file is written.
  if (method === 'post' || method === 'patch' || /^\/v1\/(reports|exports)\/\{id\}\/download$/.test(path)) statuses.push('409');
  if (path.includes('{token}') || path === '/v1/sync') statuses.push('410');
  if (honoursIfMatch(method, path)) statuses.push('412');
  if (hasBody) statuses.push('413');
  if (hasParams) statuses.push('414');
  if (hasBody) statuses.push('415');
  if (op.responses?.['206']) statuses.push('416');
  if (writes) statuses.push('422');
  if (authenticated || signIn || (method === 'post' && path === '/v1/developer-applications')) statuses.push('429');
  statuses.push('5XX');
  return statuses;
}

const header = (description: string, example: string, schema: Json = { type: 'string' }) => ({ description, schema, example });

/** `components.headers`: the response headers of the conventions in src/http. */
export const RESPONSE_HEADERS: Json = {
  'X-Request-Id': { ...header('This request\'s id (yours, when you sent a sane `X-Request-Id`); quote it when reporting a problem.', EXAMPLE_REQUEST_ID), required: true },
  ETag: { ...header('Strong validator of this version of the object: send it as `If-None-Match` (GET → 304) or `If-Match` (PATCH/DELETE → 412 when it changed).', '"Yq3Kx0bM2cQ8t1ZrV4wN9a"'), required: true },
  Location: { ...header('The path of the new object.', '/v1/projects/prj_01jdq7v3m4k8x2c9f5t6b1n0zr'), required: true },
  Link: header('`<…>; rel="next"`: the next page, when `has_more` is true.', '<https://jobsite.example.com/v1/projects?limit=50&cursor=eyJ2IjpbIjIwMjYtMTEtMjRUMTQ6MDU6MTEuNDIwWiJdfQ>; rel="next"'),
  'Idempotent-Replayed': header('`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.', 'true', { type: 'string', enum: ['true'] }),
  'RateLimit-Policy': { ...header('The key\'s quota: requests (`q`) per window of `w` seconds (IETF RateLimit headers).', '"default";q=600;w=60'), required: true },
  RateLimit: { ...header('What is left of the quota (`r`) and seconds until the window resets (`t`).', '"default";r=598;t=42'), required: true },
  'Retry-After': header('Seconds to wait before retrying.', '12', { type: 'string', pattern: '^[0-9]+$' }),
  'WWW-Authenticate': { ...header('The bearer challenge.', 'Bearer realm="jobsite", error="invalid_token"'), required: true },
};
