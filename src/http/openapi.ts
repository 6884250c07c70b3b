import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
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

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  app.addSchema(Problem);
  app.addHook('onRoute', (route) => {
    if (!route.schema || route.schema.hide) return;
    const response = (route.schema.response ??= {}) as Record<string, unknown>;
    const statuses = [...COMMON_ERRORS, ...(route.method === 'PATCH' || route.method === 'DELETE' ? [412] : []), ...(route.method === 'POST' ? [409, 422] : []),
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
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `jsk_…`.' } } },
      security: [{ bearer: [] }],
    },
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
