import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Availability } from '../db/availability.ts';
import { databaseFailure } from '../db/unavailable.ts';
import { isStorageUnavailable } from '../storage/unavailable.ts';
import { ApiError, problemType } from './errors.ts';
import { toFieldErrors } from './validation.ts';

const FASTIFY_CODES: Record<string, { status: number; code: string; title: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', title: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_header', title: 'Bad request' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', title: 'Payload too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'malformed_json', title: 'Bad request' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_json', title: 'Bad request' },
  FST_ERR_NOT_ACCEPTABLE: { status: 406, code: 'not_acceptable', title: 'Not acceptable' },
  FST_ERR_BAD_URL: { status: 400, code: 'invalid_url', title: 'Bad request' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'uri_too_long', title: 'URI too long' },
};

/** Clearer words than Fastify's for the errors an integrator is most likely to meet. */
const FASTIFY_DETAILS: Record<string, (req?: FastifyRequest) => string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (req) =>
    `Send the body as application/json${req?.headers['content-type'] ? ` (not ${req.headers['content-type'].split(';')[0]})` : ' and say so in Content-Type'}.`,
  FST_ERR_CTP_BODY_TOO_LARGE: (req) => `The body is larger than the limit of ${req?.routeOptions.bodyLimit ?? 1024 * 1024} bytes.`,
};

export function sendProblem(req: FastifyRequest, reply: FastifyReply, err: ApiError) {
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  // Errors raised before routing (a badly encoded URL) skip the onRequest hook that sets it.
  if (!reply.hasHeader('x-request-id')) reply.header('x-request-id', req.id);
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send({
      type: problemType(err.code),
      title: err.title,
      status: err.status,
      ...(err.detail ? { detail: err.detail } : {}),
      code: err.code,
      request_id: req.id,
      ...err.extra,
    });
}

/** Seconds a client is asked to wait before retrying when a dependency is down. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

export const databaseUnavailable = (detail = 'The database is unreachable at the moment; retry shortly.') =>
  new ApiError(503, 'database_unavailable', 'Service unavailable', detail, {}, { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) });

export const storageUnavailable = () =>
  new ApiError(503, 'storage_unavailable', 'Service unavailable', 'The file store is unreachable at the moment; nothing was stored. Retry shortly.',
    {}, { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) });

/**
 * Maps anything thrown to a problem+json answer: our ApiErrors, Fastify's 4xx, a database or blob
 * store that is unreachable (503 with Retry-After), and a bland 500.
 */
export function toApiError(err: FastifyError | ApiError | Error, req?: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  // The store first: its network errors look like the database's, but are tagged by the store.
  if (isStorageUnavailable(err)) return storageUnavailable();
  const failure = databaseFailure(err);
  if (failure === 'timeout') return databaseUnavailable('The database did not answer in time; retry shortly.');
  if (failure) return databaseUnavailable();
  const fe = err as FastifyError;
  if (fe.validation) {
    const errors = toFieldErrors(fe.validation, fe.validationContext);
    return new ApiError(400, 'validation_failed', 'Validation failed', errors.map((e) => `${e.path} ${e.message}`).join('; '), { errors });
  }
  if (err instanceof SyntaxError && fe.statusCode === 400) {
    return new ApiError(400, 'malformed_json', 'Bad request', `The body is not valid JSON: ${err.message}`);
  }
  const known = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (known) return new ApiError(known.status, known.code, known.title, FASTIFY_DETAILS[fe.code!]?.(req) ?? fe.message);
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ApiError(fe.statusCode, 'bad_request', STATUS_CODES[fe.statusCode] ?? 'Bad request', fe.message);
  }
  return new ApiError(500, 'internal_error', 'Internal server error', 'Something went wrong on our side. Quote the request id if you report it.');
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Where outages are reported instead of logging each failed request (see db/availability.ts). */
export interface OutageReporters {
  database?: Availability;
  storage?: Availability;
}

/** Answers a request no route matched before the 404 does (the web app's client routes); false to pass. */
export type PageFallback = (req: FastifyRequest, reply: FastifyReply) => boolean;

export function registerErrorHandling(app: FastifyInstance, outages: OutageReporters = {}, pageFallback?: PageFallback): void {
  // A shadow router of every declared route, to tell "no such path" (404) from "wrong method" (405).
  // Same matching options as the app's router, so both agree on which paths exist.
  const { routerOptions } = app.initialConfig as { routerOptions?: { ignoreTrailingSlash?: boolean; maxParamLength?: number } };
  const shadow = FindMyWay({ ignoreTrailingSlash: routerOptions?.ignoreTrailingSlash ?? false, maxParamLength: routerOptions?.maxParamLength ?? 100 });
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD' && !shadow.find(method as 'GET', route.url)) shadow.on(method as 'GET', route.url, () => undefined);
    }
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const problem = toApiError(err, req);
    if (problem.code === 'database_unavailable' && outages.database && databaseFailure(err) === 'unreachable') {
      outages.database.failed(err, 'api');
    } else if (problem.code === 'storage_unavailable' && outages.storage) {
      outages.storage.failed(err, 'api');
    } else if (problem.status >= 500 && !(err instanceof ApiError && problem.status === 503)) {
      req.log.error({ err }, 'request failed');
    }
    return sendProblem(req, reply, problem);
  });

  app.setNotFoundHandler((req, reply) => {
    if (pageFallback?.(req, reply)) return reply;
    const path = req.url.split('?')[0]!;
    const allowed = METHODS.filter((m) => m !== req.method && shadow.find(m, path));
    if (allowed.length) {
      reply.header('allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '));
      return sendProblem(req, reply, new ApiError(405, 'method_not_allowed', 'Method not allowed',
        `${req.method} is not supported on ${path}; use ${allowed.join(', ')}.`));
    }
    return sendProblem(req, reply, new ApiError(404, 'route_not_found', 'Not found', `There is no endpoint ${req.method} ${path}.`));
  });
}
