import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { ApiError } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { scope: string; key: string } | null;
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

/**
 * `Idempotency-Key` on POST (Stripe's model): the first response (any status below 500) is
 * stored for 24 h and replayed, with `Idempotent-Replayed: true`, for the same key; the same key
 * with another request answers 422; while the first is still running, 409. Keys are scoped to
 * the calling user. A 5xx is not stored, so the client's retry runs again.
 */
export function registerIdempotency(app: FastifyInstance, db: Db): void {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (req, reply) => {
    const key = req.headers['idempotency-key'];
    if (req.method !== 'POST' || key === undefined || !req.actor) return;
    if (typeof key !== 'string' || !KEY_SHAPE.test(key)) {
      throw new ApiError(400, 'invalid_header', 'Bad request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
        { errors: [{ path: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' }] });
    }
    const scope = `${req.actor.workspaceId}:${req.actor.userId}`;
    const requestHash = crypto.createHash('sha256')
      .update(`${req.method} ${req.url.split('?')[0]}\n${canonicalJson(req.body)}`).digest('hex');

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
      const expired = existing.age_seconds > IDEMPOTENCY_TTL_HOURS * 3600;
      const abandoned = existing.status === 'in_flight' && existing.age_seconds > ABANDONED_AFTER_SECONDS;
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
      for (const [name, value] of Object.entries(existing.response_headers ?? {})) reply.header(name, value);
      reply.header('idempotent-replayed', 'true');
      reply.code(existing.response_status ?? 200);
      return reply.send(existing.response_body ?? '');
    }
    throw new ApiError(409, 'idempotency_key_in_use', 'Conflict', 'The Idempotency-Key is contended; retry later.', {}, { 'retry-after': '1' });
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const claim = req.idempotency;
    if (!claim) return payload;
    req.idempotency = null;
    const where = db.updateTable('idempotency_keys').where('scope', '=', claim.scope).where('key', '=', claim.key);
    if (reply.statusCode >= 500 || (payload !== null && typeof payload !== 'string')) {
      await db.deleteFrom('idempotency_keys').where('scope', '=', claim.scope).where('key', '=', claim.key).execute();
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await where.set({
      status: 'completed',
      response_status: reply.statusCode,
      response_headers: JSON.stringify(headers),
      response_body: (payload as string | null) ?? '',
    }).execute();
    return payload;
  });
}
