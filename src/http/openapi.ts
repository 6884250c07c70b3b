import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Comment } from '../features/comments/comments.schemas.ts';
import { EVENT_TYPES, type EventType } from '../features/events/event-types.ts';
import { Document } from '../features/documents/documents.schemas.ts';
import { Notification } from '../features/notifications/notifications.schemas.ts';
import { Photo } from '../features/photos/photos.schemas.ts';
import { Project } from '../features/projects/projects.schemas.ts';
import { Report } from '../features/reports/reports.schemas.ts';
import { Tag } from '../features/tags/tags.schemas.ts';
import { Task } from '../features/tasks/tasks.schemas.ts';
import { User } from '../features/users/users.schemas.ts';
import { Video } from '../features/videos/videos.schemas.ts';
import { Webhook } from '../features/webhooks/webhooks.schemas.ts';
import { ERROR_CODES, Problem } from './errors.ts';

const DESCRIPTION = `The Jobsite API: projects, crews, photos, tasks, documents and reports for construction and field crews.

**Authentication**: \`Authorization: Bearer jsk_…\`. **Errors**: RFC 9457 problem+json with a stable \`code\`:

${Object.entries(ERROR_CODES).map(([code, text]) => `- \`${code}\` — ${text}`).join('\n')}

**Lists** are keyset-paginated: \`limit\` (1..100, default 50) and \`cursor\` (the previous page's \`next_cursor\`), with a \`Link: rel="next"\` header.
**Idempotency**: send \`Idempotency-Key\` on any POST to make retries safe for 24 hours (a replay carries \`Idempotent-Replayed: true\`; a response holding a one-time secret is not replayed: see \`idempotency_key_secret\`).
**Concurrency**: single objects carry an \`ETag\`; send \`If-None-Match\` on GET and \`If-Match\` on PATCH/DELETE.
**Rate limits**: per API key, announced in \`RateLimit-Policy\` and \`RateLimit\` headers; 429 with \`Retry-After\` when exceeded.`;

/** Error responses every authenticated route may give; added to each route's schema. */
const COMMON_ERRORS = [400, 401, 403, 404, 429] as const;

/** The request headers of the shared conventions, documented on the routes they apply to. */
const CONVENTION_HEADERS = {
  idempotencyKey: { type: 'string', minLength: 1, maxLength: 255, description: 'Makes a retry safe: the first response is replayed for 24 h (1..255 visible ASCII characters; scoped to your user).' },
  ifMatch: { type: 'string', description: 'An `ETag` from a read: the write happens only if the object has not changed since (else 412).' },
  ifNoneMatch: { type: 'string', description: 'An `ETag` from a read: 304 with no body if the object has not changed since.' },
} as const;

type DocSchema = Record<string, any>;

/** Which convention headers a route takes, for the document only (they are checked in code). */
function conventionHeaders(methods: string[], schema: DocSchema): Record<string, object> {
  const method = methods.find((m) => m !== 'HEAD');
  if (method === 'POST') return { 'Idempotency-Key': CONVENTION_HEADERS.idempotencyKey };
  if (method === 'PATCH' || method === 'DELETE') return { 'If-Match': CONVENTION_HEADERS.ifMatch };
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
  tag: { name: 'Tag', schema: Tag },
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

/**
 * OpenAPI 3.1 `webhooks`: one entry per event type, describing the POST a receiver gets:
 * the envelope with `event` fixed to that type, its `data`, and the signature headers.
 */
export function eventWebhooks(): Record<string, DocSchema> {
  const entries: Record<string, DocSchema> = {};
  for (const [event, description] of Object.entries(EVENT_TYPES) as [EventType, string][]) {
    const projectScoped = event.startsWith('project.');
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
                  data: eventDataSchema(event),
                },
              },
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

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  app.addSchema(Problem);
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return;
    const response = (route.schema.response ??= {}) as Record<string, unknown>;
    // A public route (signed file URLs) never answers 401, and has no key to rate-limit.
    const common = route.config?.auth === false ? COMMON_ERRORS.filter((s) => s !== 401 && s !== 429) : COMMON_ERRORS;
    const statuses = [...common, ...(route.method === 'PATCH' || route.method === 'DELETE' ? [412] : []), ...(route.method === 'POST' ? [409, 422] : route.method === 'PATCH' ? [422] : []),
      ...(route.schema.body ? [413, 415] : [])];
    for (const status of statuses) {
      response[status] ??= { description: 'Problem (RFC 9457)', content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } };
    }
    response['5xx'] ??= { description: 'Problem (RFC 9457)', content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } };
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Jobsite API', version: '1.0.0', description: DESCRIPTION },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `jsk_…`.' } },
        // The resources event payloads carry, referenced from `webhooks`.
        schemas: { Project: plain(Project), Photo: plain(Photo), Notification: plain(Notification), Document: plain(Document), User: plain(User), Video: plain(Video), Webhook: plain(Webhook), Task: plain(Task), Comment: plain(Comment), Report: plain(Report), Tag: plain(Tag) },
      },
      webhooks: eventWebhooks(),
      security: [{ bearer: [] }],
    },
    transformObject: (doc) => addMultipartBodies((doc as { openapiObject: DocSchema }).openapiObject) as never,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const extra = conventionHeaders([route.method].flat().map(String), schema as DocSchema);
      const own = (schema as DocSchema | undefined)?.headers;
      if (!schema || !Object.keys(extra).length || (own && own.type !== 'object')) return { schema, url };
      const headers = { type: 'object', ...own, properties: { ...extra, ...own?.properties } };
      return { schema: { ...schema, headers } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true },
    staticCSP: true,
    // Self-hosted servers often speak plain HTTP on a LAN address, where this directive would
    // send the browser to https:// for the page's own scripts and leave the page blank.
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
  });
  app.get('/v1/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
}
