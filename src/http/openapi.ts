import fs from 'node:fs';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Comment } from '../features/comments/comments.schemas.ts';
import { EVENT_TYPES, type EventType } from '../features/events/event-types.ts';
import { Document } from '../features/documents/documents.schemas.ts';
import { Notification } from '../features/notifications/notifications.schemas.ts';
import { Photo, PhotoAssignment } from '../features/photos/photos.schemas.ts';
import { Project } from '../features/projects/projects.schemas.ts';
import { Report } from '../features/reports/reports.schemas.ts';
import { ShareLink } from '../features/share-links/share-links.schemas.ts';
import { Export } from '../features/exports/exports.schemas.ts';
import { Tag } from '../features/tags/tags.schemas.ts';
import { Task } from '../features/tasks/tasks.schemas.ts';
import { User } from '../features/users/users.schemas.ts';
import { Video } from '../features/videos/videos.schemas.ts';
import { Webhook } from '../features/webhooks/webhooks.schemas.ts';
import { ERROR_CODES, Problem } from './errors.ts';
import { finishDocument } from './openapi-document.ts';
import { codesByStatus, honoursIfMatch } from './openapi-errors.ts';
import { SCHEMA_EXAMPLES } from './openapi-examples.ts';

/** Every error code by status, collapsed below the introduction so the endpoints stay on the first screen. */
function errorCatalogue(): string {
  const rows: string[] = [];
  for (const [status, codes] of codesByStatus()) {
    for (const code of codes) rows.push(`| ${status === '5XX' ? ERROR_CODES[code]!.slice(0, 3) : status} | \`${code}\` | ${ERROR_CODES[code]!.replace(/^[^:]*:\s*/, '').replace(/\|/g, '\\|')} |`);
  }
  return `<details>\n<summary>Error codes (${rows.length}): every <code>code</code> a problem can carry, by status</summary>\n\n` +
    `| Status | Code | Meaning |\n| --- | --- | --- |\n${rows.join('\n')}\n\n</details>`;
}

const DESCRIPTION = `The Jobsite API: projects, crews, photos, videos, tasks, comments, documents and PDF reports for construction and field crews, with an event log and signed webhooks.

- **Authentication**: \`Authorization: Bearer jsk_…\` (an API key; the *Authorize* button takes one), or the \`jobsite_session\` cookie of a person signed in with \`POST /v1/sessions\` (writes then need \`X-CSRF-Token\`; see docs/sign-in.md). **Errors** are RFC 9457 \`application/problem+json\` with a stable \`code\` to branch on; each response below lists the codes its status carries, and the full list is under *Error codes*.
- **Lists** are keyset-paginated: \`limit\` (1..100, default 50) and \`cursor\` (the previous page's \`next_cursor\`), with a \`Link: rel="next"\` header.
- **Idempotency**: send \`Idempotency-Key\` on any POST to make retries safe for 24 hours (a replay carries \`Idempotent-Replayed: true\`; a response holding a one-time secret is not replayed: see \`idempotency_key_secret\`).
- **Concurrency**: single objects carry an \`ETag\`; send \`If-None-Match\` on GET and \`If-Match\` on PATCH/DELETE.
- **Rate limits**: per API key, announced in \`RateLimit-Policy\` and \`RateLimit\` headers; 429 with \`Retry-After\` when exceeded.
- **Methods**: a path called with a method it does not serve answers 405 \`method_not_allowed\` with an \`Allow\` header; an unknown path 404 \`route_not_found\`.

${errorCatalogue()}`;

/** The sections of the reference, in reading order: the work first, then administration and integration. */
const TAGS = [
  { name: 'Projects', description: 'Jobs and sites: name, address, coordinates, cover photo, tags; archived rather than lost.' },
  { name: 'Crew', description: 'Who is on a project. Restricted users see only the projects they are on or created.' },
  { name: 'Photos', description: 'Streamed uploads or URL imports; EXIF time and GPS, variants, annotations. See docs/photos.md.' },
  { name: 'Videos', description: 'Streamed uploads; duration, size and a poster frame once probed. See docs/videos.md.' },
  { name: 'Tasks', description: 'To-dos on a project: assignee, due date, attached photos, completion.' },
  { name: 'Comments', description: 'On projects, photos and tasks; `@handle` mentions notify.' },
  { name: 'Tags', description: 'The workspace\'s labels, put on projects and photos.' },
  { name: 'Documents', description: 'Files of a project (drawings, permits, contracts) and their downloads.' },
  { name: 'Reports', description: 'PDF photo reports, rendered in the background.' },
  { name: 'Share links', description: 'Public pages (`/s/{token}`) of chosen photos or a report, for clients without an account; view counts; revoked at once. See docs/share-links.md.' },
  { name: 'Exports', description: 'ZIP files of a project\'s original photos with CSV and JSON manifests, written in the background. See docs/exports.md.' },
  { name: 'Files', description: 'Signed, expiring URLs: the bytes of photos, videos, documents, reports and exports, without a key.' },
  { name: 'Notifications', description: 'Mentions and task assignments for the calling user.' },
  { name: 'Users', description: 'The workspace\'s people and their roles.' },
  { name: 'Sessions', description: 'People sign in with e-mail and password: the session cookie, its CSRF token, invitations and password resets. See docs/sign-in.md.' },
  { name: 'API keys', description: 'Keys for programs: read-only, expiring, rotated with a grace period.' },
  { name: 'Workspace', description: 'The workspace of the calling key.' },
  { name: 'Webhooks', description: 'Endpoints that receive events, signed; the delivery log, retries and replays. See docs/webhooks.md.' },
  { name: 'Events', description: 'The event log (30 days): what webhooks deliver, to reconcile without them.' },
  { name: 'Search', description: 'One search box across projects, captions, tasks, comments and documents (their text too), ranked. See docs/search.md.' },
  { name: 'Sync', description: 'Offline delta sync for field apps: every change the caller can see, in commit order, deletes included. See docs/sync.md.' },
  { name: 'Webhook events', description: 'What a webhook endpoint receives: one POST per event, signed twice.' },
  { name: 'Developer program', description: 'Integrators apply for API access without a key; the operator approves.' },
];

/** The request headers of the shared conventions, documented on the routes they apply to. */
const CONVENTION_HEADERS = {
  idempotencyKey: { type: 'string', minLength: 1, maxLength: 255, description: 'Makes a retry safe: the first response is replayed for 24 h (1..255 visible ASCII characters; scoped to your user).' },
  ifMatch: { type: 'string', description: 'An `ETag` from a read: the write happens only if the object has not changed since (else 412).' },
  ifNoneMatch: { type: 'string', description: 'An `ETag` from a read: 304 with no body if the object has not changed since.' },
} as const;

type DocSchema = Record<string, any>;

/** Which convention headers a route takes, for the document only (they are checked in code). */
function conventionHeaders(methods: string[], url: string, schema: DocSchema): Record<string, object> {
  const method = methods.find((m) => m !== 'HEAD');
  if (method === 'POST') return { 'Idempotency-Key': CONVENTION_HEADERS.idempotencyKey };
  if (method && honoursIfMatch(method.toLowerCase(), url.replace(/:(\w+)/g, '{$1}'))) return { 'If-Match': CONVENTION_HEADERS.ifMatch };
  const ok = schema.response?.[200] ?? schema.response?.['200'];
  if (method === 'GET' && ok?.properties?.updated_at && ok.properties.id) return { 'If-None-Match': CONVENTION_HEADERS.ifNoneMatch };
  return {};
}

/** Resource schemas that event payloads carry as `data`, by the event's resource (the part before the dot). */
const EVENT_DATA: Record<string, { name: string; schema: TSchema }> = {
  project: { name: 'Project', schema: Project },
  photo: { name: 'Photo', schema: Photo },
  notification: { name: 'Notification', schema: Notification },
  document: { name: 'Document', schema: Document },
  user: { name: 'User', schema: User },
  video: { name: 'Video', schema: Video },
  comment: { name: 'Comment', schema: Comment },
  task: { name: 'Task', schema: Task },
  report: { name: 'Report', schema: Report },
  export: { name: 'Export', schema: Export },
  tag: { name: 'Tag', schema: Tag },
  share_link: { name: 'ShareLink', schema: ShareLink },
};

/** A TypeBox schema as plain JSON (without TypeBox's symbol keys), for the document's components. */
const plain = (schema: TSchema): DocSchema => JSON.parse(JSON.stringify(schema)) as DocSchema;

const WEBHOOK_HEADERS: DocSchema[] = [
  { name: 'X-Service-Signature', schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
    description: '`sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the secret string\'s UTF-8 bytes (GitHub style; `@octokit/webhooks-methods` `verify` accepts it).' },
  { name: 'X-Service-Signature-Previous', required: false, schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
    description: 'During a secret rotation: the same signature made with the previous secret.' },
  { name: 'webhook-id', schema: { type: 'string' }, description: 'Standard Webhooks: the event id (`evt_…`), the same on every attempt and retry. Dedupe on it.' },
  { name: 'webhook-timestamp', schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'Standard Webhooks: unix seconds of this attempt. Refuse old ones to stop replays.' },
  { name: 'webhook-signature', schema: { type: 'string' },
    description: 'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the base64-decoded secret after `whsec_`; ' +
      'during a rotation two of them, space-separated (the `standardwebhooks` package verifies it).' },
  { name: 'X-Service-Event', schema: { type: 'string' }, description: 'The event type, as in the body\'s `event`.' },
  { name: 'X-Service-Delivery', schema: { type: 'string' }, description: 'The delivery id (`dlv_…`): one per (event, endpoint); see `GET /v1/webhooks/{id}/deliveries`.' },
  { name: 'User-Agent', schema: { type: 'string' }, description: 'Names the service: `Jobsite-Webhooks/<version> (+<public URL>)`.' },
].map((h) => ({ in: 'header', required: true, ...h }));

/** The schema of an event's `data`: the resource it carries, or what the event type's description says. */
function eventDataSchema(event: EventType): DocSchema {
  if (event === 'photo.assigned') return { ...plain(PhotoAssignment), properties: { ...plain(PhotoAssignment).properties, photo: { $ref: '#/components/schemas/Photo' } } };
  const resource = event.slice(0, event.indexOf('.'));
  const known = EVENT_DATA[resource];
  if (known) return { $ref: `#/components/schemas/${known.name}` };
  if (event === 'webhook.disabled') return { $ref: '#/components/schemas/Webhook' };
  if (event === 'webhook.ping') {
    return {
      type: 'object', required: ['id', 'webhook_id', 'message'],
      properties: {
        id: { type: 'string', description: 'whk_… of the pinged endpoint: like every event, `data.id` names the resource it is about.' },
        webhook_id: { type: 'string', description: 'The same id (kept for receivers written before `id` was added).' },
        message: { type: 'string' },
      },
    };
  }
  return { type: 'object', description: EVENT_TYPES[event] };
}

/** A delivery's body for the reference page, when the event carries a resource we have an example of. */
function eventExample(event: EventType, data: DocSchema): DocSchema | undefined {
  const name = typeof data.$ref === 'string' ? data.$ref.split('/').at(-1)! : undefined;
  const example = name ? SCHEMA_EXAMPLES[name] : event === 'photo.assigned' ? SCHEMA_EXAMPLES.PhotoAssignment : event === 'webhook.ping' ? { id: 'whk_01jdqf7h9k1n3p5q7r9s1t3v5x', webhook_id: 'whk_01jdqf7h9k1n3p5q7r9s1t3v5x', message: 'Ping from Jobsite.' } : undefined;
  if (example === undefined) return undefined;
  const projectId = (example as { project_id?: string }).project_id ?? (name === 'Project' ? (example as { id: string }).id : null);
  return {
    id: 'evt_01jdqg8j0m2p4q6r8s0t2v4w6y', event, project_id: event.startsWith('project.') ? projectId ?? 'prj_01jdq7v3m4k8x2c9f5t6b1n0zr' : projectId,
    workspace_id: 'wsp_01jdq5r8s2t4v6w8x0y2z4a6b8', created_at: '2026-11-24T15:32:48.017Z', data: example,
  };
}

/**
 * OpenAPI 3.1 `webhooks`: one entry per event type, describing the POST a receiver gets:
 * the envelope with `event` fixed to that type, its `data`, and the signature headers.
 */
export function eventWebhooks(): Record<string, DocSchema> {
  const entries: Record<string, DocSchema> = {};
  for (const [event, description] of Object.entries(EVENT_TYPES) as [EventType, string][]) {
    const projectScoped = event.startsWith('project.');
    const data = eventDataSchema(event);
    const example = eventExample(event, data);
    entries[event] = {
      post: {
        operationId: `receive_${event.replace('.', '_')}`,
        // Receivers authenticate deliveries by their signatures, not by a bearer key.
        security: [],
        tags: ['Webhook events'],
        summary: event,
        description: `${description}\n\nDelivered at least once to every enabled endpoint subscribed to \`${event}\`, ` +
          `\`${event.slice(0, event.indexOf('.'))}.*\` or \`*\`${event === 'webhook.ping' ? ' (a ping goes only to the pinged endpoint, whatever it subscribes to)' : ''}. ` +
          'Verify a signature over the raw body before parsing it, and dedupe on `webhook-id`.',
        parameters: WEBHOOK_HEADERS,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id', 'event', 'project_id', 'workspace_id', 'created_at', 'data'],
                properties: {
                  id: { type: 'string', description: 'evt_…; the same as the `webhook-id` header.' },
                  event: { type: 'string', const: event },
                  project_id: projectScoped ? { type: 'string', description: 'prj_…' } : { type: ['string', 'null'], description: 'prj_… of the project the event belongs to, or null.' },
                  workspace_id: { type: 'string', description: 'wsp_…' },
                  created_at: { type: 'string', format: 'date-time', description: 'When the change happened; tells the order of events (deliveries may arrive out of order).' },
                  data,
                },
              },
              ...(example ? { example } : {}),
            },
          },
        },
        responses: {
          '2XX': { description: 'Received. Answer within 10 s; the body is ignored (its first 4 KB are kept in the delivery log).' },
          '410': { description: 'Gone: the endpoint is disabled at once and gets no more deliveries.' },
          default: { description: 'Anything else (or a timeout, or a redirect) is retried on the schedule; a `Retry-After` is honoured between the scheduled delay and twice it.' },
        },
      },
    };
  }
  return entries;
}

/** Multipart request bodies by `METHOD /openapi/path`, added to the document beside the JSON body. */
const MULTIPART_BODIES = new Map<string, DocSchema>();

/** Documents that `method path` (OpenAPI form: `/v1/projects/{id}/photos`) also takes multipart/form-data. */
export function documentMultipart(method: string, path: string, form: DocSchema): void {
  MULTIPART_BODIES.set(`${method.toLowerCase()} ${path}`, form);
}

/** Whether the route at `url` (Fastify form: `/v1/projects/:id/photos`) was documented as taking multipart/form-data. */
export function takesMultipart(method: string, url: string): boolean {
  return MULTIPART_BODIES.has(`${method.toLowerCase()} ${url.replace(/:(\w+)/g, '{$1}')}`);
}

function addMultipartBodies(document: DocSchema): DocSchema {
  for (const [key, form] of MULTIPART_BODIES) {
    const [method, path] = key.split(' ') as [string, string];
    const operation = document.paths?.[path]?.[method];
    if (!operation) continue;
    operation.requestBody ??= { content: {} };
    operation.requestBody.content = { 'multipart/form-data': { schema: form }, ...operation.requestBody.content };
  }
  return document;
}

const REFERENCE_ASSETS = new URL('./reference/', import.meta.url);
const asset = (name: string) => fs.readFileSync(new URL(name, REFERENCE_ASSETS));

/**
 * The reference page's Content-Security-Policy: scripts and styles only from this server (no
 * inline ones: the page has none), pictures from here or data: URLs, "Try it out" requests to this
 * server or the public URL. No `upgrade-insecure-requests`: self-hosted servers often speak plain
 * HTTP on a LAN address, where it would send the browser to https:// and leave the page blank.
 */
function referenceCsp(publicUrl: string): string {
  const origin = new URL(publicUrl).origin;
  return `default-src 'self'; base-uri 'self'; connect-src 'self' ${origin}; font-src 'self' data:; form-action 'self'; ` +
    'frame-ancestors \'self\'; img-src \'self\' data:; object-src \'none\'; script-src \'self\'; script-src-attr \'none\'; style-src \'self\'';
}

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  app.addSchema(Problem);
  // A public route (signed file URLs, the developer program) says so in the document: no bearer key.
  app.addHook('onRoute', (route) => {
    if (route.schema && !route.schema.hide && route.config?.auth === false) (route.schema as DocSchema).security ??= [];
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Jobsite API', version: '1.0.0', description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
      servers: [{ url: publicUrl }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `jsk_…`.' },
          session: {
            type: 'apiKey', in: 'cookie', name: 'jobsite_session',
            description: 'The session cookie set by `POST /v1/sessions` (people in a browser). Writes (POST, PUT, PATCH, DELETE) must also send the session\'s `X-CSRF-Token`, else 403 `csrf_token_missing`. With both a bearer key and the cookie, the key is used and the cookie ignored.',
          },
        },
        // The resources event payloads carry, referenced from `webhooks`.
        schemas: { Project: plain(Project), Photo: plain(Photo), Notification: plain(Notification), Document: plain(Document), User: plain(User), Video: plain(Video), Webhook: plain(Webhook), Task: plain(Task), Comment: plain(Comment), Report: plain(Report), Tag: plain(Tag), ShareLink: plain(ShareLink) },
      },
      webhooks: eventWebhooks(),
      security: [{ bearer: [] }, { session: [] }],
    },
    transformObject: (doc) => finishDocument(addMultipartBodies((doc as { openapiObject: DocSchema }).openapiObject)) as never,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const extra = conventionHeaders([route.method].flat().map(String), url, schema as DocSchema);
      const own = (schema as DocSchema | undefined)?.headers;
      if (!schema || !Object.keys(extra).length || (own && own.type !== 'object')) return { schema, url };
      const headers = { type: 'object', ...own, properties: { ...extra, ...own?.properties } };
      return { schema: { ...schema, headers } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // BaseLayout: no Swagger top bar (its logo is an inline <style> the CSP refuses, and its URL box
    // loads arbitrary documents); reference.css draws Jobsite's header. The document is fetched from
    // /v1/openapi.json, the address integrators use, through the UI's own configUrl mechanism.
    uiConfig: { layout: 'BaseLayout', deepLinking: true, configUrl: '/docs/ui-config.json', defaultModelsExpandDepth: 0, displayRequestDuration: true },
    validatorUrl: false,
    logo: { type: 'image/svg+xml', content: asset('logo.svg') },
    theme: {
      title: 'Jobsite API',
      css: [{ filename: 'reference.css', content: asset('reference.css').toString('utf8') }],
      favicon: [{ filename: 'logo.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: asset('logo.svg') }],
    },
    staticCSP: referenceCsp(publicUrl),
  });
  app.get('/docs/ui-config.json', { config: { auth: false }, schema: { hide: true } }, async () => ({ url: '/v1/openapi.json' }));
  app.get('/v1/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
}
