import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { ApiError } from './errors.ts';
import { addRouteHook, methodsOf } from './route-hooks.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { scope: string; key: string } | null;
  }
  interface FastifyContextConfig {
    /**
     * Top-level response fields that hold a secret shown only once (e.g. `['key']` on
     * POST /v1/api-keys). They are never written to the idempotency store; see below.
     */
    idempotencySecretFields?: readonly string[];
  }
}

/** Stored responses are replayed for this long. */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** An in-flight record older than this belongs to a request whose process died; it may be taken over. */
const ABANDONED_AFTER_SECONDS = 120;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['content-type', 'location', 'etag'];

/** JSON with sorted object keys, so the same body sent with another key order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What makes two requests "the same" for a key: method, path (not the query) and the body's JSON value. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return crypto.createHash('sha256').update(`${method} ${url.split('?')[0]}\n${canonicalJson(body)}`).digest('hex');
}

/** The stored body of a response with secrets: those fields are null, nothing else changes. */
function withoutSecrets(payload: string, fields: readonly string[]): string {
  try {
    const body = JSON.parse(payload) as unknown;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return payload;
    for (const field of fields) if (field in body) (body as Record<string, unknown>)[field] = null;
    return JSON.stringify(body);
  } catch {
    return ''; // not JSON: store nothing rather than something that might hold the secret
  }
}

function secretResponseReplayed(stored: { response_headers: Record<string, string> | null; response_body: string | null }): never {
  let id: unknown;
  try { id = (JSON.parse(stored.response_body ?? '') as { id?: unknown }).id; } catch { /* no id to name */ }
  const location = stored.response_headers?.location;
  throw new ApiError(409, 'idempotency_key_secret', 'Conflict',
    `The request with this Idempotency-Key already succeeded${typeof id === 'string' ? ` and created ${id}` : ''}, ` +
    'but its response held a secret that is shown only once and was not stored. If you lost it, revoke that object and create a new one with a new key.',
    { ...(typeof id === 'string' ? { resource_id: id } : {}), ...(location ? { location } : {}) },
    { 'idempotent-replayed': 'true' });
}

/**
 * `Idempotency-Key` on POST (Stripe's model):
 * - The first response with a status below 500 is stored for 24 h and replayed, byte for byte
 *   with its status, `Content-Type`, `Location` and `ETag` plus `Idempotent-Replayed: true`,
 *   for the same key. 4xx answers are stored too (a retry gets the same answer); a 5xx is not,
 *   so the client's retry runs again. Requests that fail validation, authentication or rate
 *   limiting never reach the store.
 * - The same key with another request (method, path, or body as a JSON value: key order and
 *   whitespace do not matter) answers 422 `idempotency_key_reused`.
 * - While the first request is still running, 409 `idempotency_key_in_use` with `Retry-After`.
 *   An in-flight record older than 2 min is an abandoned one (its process died) and is taken over.
 * - Keys are scoped to the calling user: another user may use the same string.
 * - Keys are 1..255 visible ASCII characters; anything else is 400 `invalid_header`.
 * - Secrets are never stored. A route declares its once-only secret fields with
 *   `config: { idempotencySecretFields: ['key'] }`; a successful response is stored with those
 *   fields set to null, and a replay of it answers 409 `idempotency_key_secret` naming the
 *   created object (`resource_id`, `location`) instead of a body without its secret, which a
 *   client could mistake for the real thing. Stored non-2xx answers replay as usual.
 */
export function registerIdempotency(app: FastifyInstance, db: Db): void {
  app.decorateRequest('idempotency', null);

  const isPost = (route: RouteOptions) => methodsOf(route).includes('POST');
  addRouteHook(app, 'preHandler', isPost, async (req: FastifyRequest, reply: FastifyReply) => {
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || key === undefined || !req.actor) return;
    if (typeof key !== 'string' || !KEY_SHAPE.test(key)) {
      throw new ApiError(400, 'invalid_header', 'Bad request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        { errors: [{ path: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' }] });
    }
    const scope = `${req.actor.workspaceId}:${req.actor.userId}`;
    const requestHash = requestFingerprint(req.method, req.url, req.body);

    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await db.insertInto('idempotency_keys')
        .values({ scope, key, request_hash: requestHash, status: 'in_flight' })
        .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();
      if (inserted) {
        req.idempotency = { scope, key };
        return;
      }
      const existing = await db.selectFrom('idempotency_keys')
        .select(['request_hash', 'status', 'response_status', 'response_headers', 'response_body',
          sql<number>`extract(epoch from now() - created_at)`.as('age_seconds')])
        .where('scope', '=', scope).where('key', '=', key)
        .executeTakeFirst();
      if (!existing) continue; // deleted meanwhile: try to claim it again
      const age = Number(existing.age_seconds);
      const expired = age > IDEMPOTENCY_TTL_HOURS * 3600;
      const abandoned = existing.status === 'in_flight' && age > ABANDONED_AFTER_SECONDS;
      if (expired || abandoned) {
        await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key)
          .where('request_hash', '=', existing.request_hash).where('status', '=', existing.status).execute();
        continue;
      }
      if (existing.request_hash !== requestHash) {
        throw new ApiError(422, 'idempotency_key_reused', 'Unprocessable content',
          'This Idempotency-Key was already used with a different request. Use a new key for a new request.');
      }
      if (existing.status === 'in_flight') {
        throw new ApiError(409, 'idempotency_key_in_use', 'Conflict',
          'A request with this Idempotency-Key is still being processed; retry later.', {}, { 'retry-after': '1' });
      }
      const status = existing.response_status ?? 200;
      if (req.routeOptions.config.idempotencySecretFields?.length && status < 300) secretResponseReplayed(existing);
      for (const [name, value] of Object.entries(existing.response_headers ?? {})) reply.header(name, value);
      reply.header('idempotent-replayed', 'true');
      reply.code(status);
      return reply.send(existing.response_body ?? '');
    }
    throw new ApiError(409, 'idempotency_key_in_use', 'Conflict', 'The Idempotency-Key is contended; retry later.', {}, { 'retry-after': '1' });
  });

  addRouteHook(app, 'onSend', isPost, async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = req.idempotency;
    if (!claim) return payload;
    req.idempotency = null;
    const where = db.updateTable('idempotency_keys').where('scope', '=', claim.scope).where('key', '=', claim.key);
    if (reply.statusCode >= 500 || (payload !== null && typeof payload !== 'string')) {
      // With the database gone (a 503), the claim stays behind and counts as abandoned after
      // ABANDONED_AFTER_SECONDS; failing here would turn the 503 into a broken reply.
      await db.deleteFrom('idempotency_keys').where('scope', '=', claim.scope).where('key', '=', claim.key).execute()
        .catch(() => undefined);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const secretFields = req.routeOptions.config.idempotencySecretFields;
    let body = (payload as string | null) ?? '';
    if (secretFields?.length && reply.statusCode < 300) body = withoutSecrets(body, secretFields);
    await where.set({
      status: 'completed',
      response_status: reply.statusCode,
      response_headers: JSON.stringify(headers),
      response_body: body,
    }).execute();
    return payload;
  });
}
