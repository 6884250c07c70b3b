import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import Negotiator from 'negotiator';
import { ApiError, validationFailed } from './errors.ts';
import { takesMultipart } from './openapi.ts';
import { addRouteHook, methodsOf } from './route-hooks.ts';

/**
 * What a request may carry beyond what its route declares, decided once per route:
 * - no `querystring` schema: no query parameters at all (`DELETE /v1/tags/{id}?force=1` is a 400,
 *   not a silently ignored option); a declared one takes only the parameters it names;
 * - no `body` schema: no body (an empty one, `{}` or `null` is still fine: `POST …/archive`);
 * - a JSON answer: `Accept` must allow JSON, else 406.
 * Only the API's own routes (`/v1/…`); the OpenAPI document, `/docs`, `/healthz`, `/readyz` and
 * `/metrics` are fetched by tools that add cache-busting parameters and browser-style headers.
 */
const isApiRoute = (route: RouteOptions) => route.url.startsWith('/v1/') && route.url !== '/v1/openapi.json';

const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false } as const;

/** What the API answers in: results as JSON, errors as problem+json (also sent when Accept refuses both). */
const JSON_TYPES = ['application/json', 'application/problem+json', 'application/json; charset=utf-8'];

/** Downloads answer the file's own type (declared as `content` on their success response); they ignore Accept. */
function answersJson(route: RouteOptions): boolean {
  const responses = (route.schema?.response ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  return !Object.entries(responses).some(([status, response]) =>
    status.startsWith('2') && response?.content && !Object.keys(response.content).some((type) => type.includes('json')));
}

function acceptsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept;
  if (accept === undefined || accept.trim() === '') return true;
  return new Negotiator({ headers: { accept } }).mediaTypes(JSON_TYPES).length > 0;
}

/** GET and HEAD bodies are never parsed (other methods' are, or get a 415); their presence is still a mistake worth telling. */
function hasUnparsedBody(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function refuseBody(req: FastifyRequest): void {
  const body = req.body as unknown;
  if (body === undefined || body === null) {
    if (hasUnparsedBody(req)) validationFailed([{ path: 'body', message: `must be absent: ${req.method} takes no body` }]);
    return;
  }
  if (typeof body === 'object' && !Array.isArray(body)) {
    const fields = Object.keys(body);
    if (fields.length) validationFailed(fields.map((f) => ({ path: `body.${f}`, message: 'is not a known field' })));
    return;
  }
  validationFailed([{ path: 'body', message: 'must be absent (or {}): this endpoint takes no body' }]);
}

export function registerRequestShape(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!isApiRoute(route) || !route.schema) return;
    const query = route.schema.querystring as { type?: string; additionalProperties?: unknown } | undefined;
    if (!query) route.schema.querystring = NO_QUERY;
    // A query schema that does not say otherwise is closed too (a copy: schemas may be shared).
    else if (query.type === 'object' && query.additionalProperties === undefined) route.schema.querystring = { ...query, additionalProperties: false };
  });
  addRouteHook(app, 'preValidation',
    (route) => isApiRoute(route) && !route.schema?.body && !methodsOf(route).some((m) => takesMultipart(m, route.url)),
    async (req: FastifyRequest) => refuseBody(req));
  addRouteHook(app, 'onRequest', (route) => isApiRoute(route) && answersJson(route), async (req: FastifyRequest) => {
    if (!acceptsJson(req)) {
      throw new ApiError(406, 'not_acceptable', 'Not acceptable',
        `This endpoint answers application/json (errors application/problem+json); the Accept header "${req.headers.accept}" allows neither.`);
    }
  });
}
