import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import type { Role } from '../db/schema.ts';
import type { Actor } from './actor.ts';
import { isWellFormedApiKey } from './api-key-secret.ts';
import { CredentialCache, digestOf } from './credential-cache.ts';
import { ApiError } from './errors.ts';
import { KeyUsageRecorder } from './key-usage.ts';
import type { SessionAuthenticator } from './session-auth.ts';
import { csrfTokenMatches, sessionCookieOf } from './session-secret.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
    /** The session cookie's secret when the request was authenticated by it (for its CSRF token). */
    sessionSecret: string | null;
  }
  interface FastifyContextConfig {
    /** false for public routes (health, docs, the OpenAPI document). */
    auth?: boolean;
  }
}

/**
 * What a secret resolved to. A valid key carries the moments it stops working (its expiry, and
 * for the previous secret of a rotated key the end of the grace period): those are checked on
 * every request, so a cached lookup never outlives them.
 */
type KeyLookup =
  | { state: 'ok'; actor: Actor; expiresAt: number | null; graceEndsAt: number | null }
  | { state: 'revoked' }
  | { state: 'unknown' };

// RFC 6750 §3.1: a request without credentials gets the challenge alone, with no error code.
const unauthorized = (code: string, detail: string) =>
  new ApiError(401, code, 'Unauthorized', detail, {}, {
    'www-authenticate': code === 'missing_api_key' ? 'Bearer realm="jobsite"' : 'Bearer realm="jobsite", error="invalid_token"',
  });

/**
 * Resolves bearer secrets to actors. A lookup is cached for a few seconds so the hot path does
 * not hit the database on every request; revocation therefore reaches every process within
 * `ttlMs`, and the process that revoked drops its cache entry at once.
 */
export class ApiKeyAuthenticator {
  private readonly cache: CredentialCache<KeyLookup>;
  /** Records each key's last use, at most once a minute, off the request path. */
  readonly usage: KeyUsageRecorder;

  constructor(private readonly db: Db, ttlMs = 5_000, maxEntries = 10_000) {
    this.cache = new CredentialCache(ttlMs, maxEntries);
    this.usage = new KeyUsageRecorder(db);
  }

  async authenticate(authorization: string | undefined): Promise<Actor> {
    if (!authorization) throw unauthorized('missing_api_key', 'Send your API key as `Authorization: Bearer jsk_…`, or sign in (POST /v1/sessions) and send the session cookie.');
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized('malformed_api_key', 'The Authorization header must be `Bearer <api key>`.');
    const secret = match[1]!;
    if (!isWellFormedApiKey(secret)) throw unauthorized('malformed_api_key', 'That is not a Jobsite API key (they look like `jsk_` and 38 letters and digits).');

    const now = Date.now();
    const result = await this.cache.resolve(digestOf(secret), now, (hash) => this.lookup(hash));
    if (result.state === 'unknown') throw unauthorized('unknown_api_key', 'No such API key.');
    if (result.state === 'revoked') throw unauthorized('revoked_api_key', 'This API key was revoked or its user deactivated.');
    if (result.expiresAt !== null && result.expiresAt <= now) throw unauthorized('expired_api_key', 'This API key has expired; ask for a new one.');
    if (result.graceEndsAt !== null && result.graceEndsAt <= now) {
      throw unauthorized('rotated_api_key', 'This secret was replaced when the key was rotated, and its grace period is over; use the new secret.');
    }
    this.usage.touch(result.actor.apiKeyId!, now);
    return result.actor;
  }

  /** Drops cached lookups of a key or of every key of a user (after revocation, deactivation, role change). */
  forget(match: { apiKeyId?: string; userId?: string }): void {
    this.cache.forget((actor) => actor.apiKeyId === match.apiKeyId || actor.userId === match.userId);
  }

  private async lookup(hash: Buffer): Promise<KeyLookup> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select(['k.id', 'k.workspace_id', 'k.user_id', 'k.read_only', 'k.revoked_at', 'k.expires_at', 'k.secret_hash',
        'k.previous_secret_expires_at', 'u.role', 'u.status'])
      // The current secret, or the previous one of a rotated key (both unique).
      .where((eb) => eb.or([eb('k.secret_hash', '=', hash), eb('k.previous_secret_hash', '=', hash)]))
      .executeTakeFirst();
    if (!row) return { state: 'unknown' };
    if (row.revoked_at || row.status !== 'active') return { state: 'revoked' };
    const previous = !row.secret_hash.equals(hash);
    return {
      state: 'ok',
      actor: { workspaceId: row.workspace_id, userId: row.user_id, role: row.role as Role, apiKeyId: row.id, sessionId: null, readOnly: row.read_only },
      expiresAt: row.expires_at?.getTime() ?? null,
      // A previous secret without an end (a later rotation with no grace) no longer works at all.
      graceEndsAt: previous ? (row.previous_secret_expires_at?.getTime() ?? 0) : null,
    };
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every /v1 route (but the public ones) takes a bearer key or the session cookie. A request with
 * both is a program's: the key wins and the cookie is ignored (a browser cannot be made to send
 * an Authorization header cross-site, so the CSRF check has nothing to guard there). A request
 * that writes with the cookie must carry the session's `X-CSRF-Token`.
 */
export function registerAuth(app: FastifyInstance, keys: ApiKeyAuthenticator, sessions: SessionAuthenticator): void {
  app.decorateRequest('actor', null as unknown as Actor);
  app.decorateRequest('sessionSecret', null);
  app.addHook('onRequest', async (req: FastifyRequest, _reply: FastifyReply) => {
    const url = req.routeOptions.url;
    if (!url?.startsWith('/v1/') || req.routeOptions.config.auth === false) return;
    const cookie = req.headers.authorization ? null : sessionCookieOf(req.headers.cookie);
    if (cookie === null) {
      req.actor = await keys.authenticate(req.headers.authorization);
      if (req.actor.readOnly && !SAFE_METHODS.has(req.method)) {
        throw new ApiError(403, 'read_only_key', 'Forbidden', 'This API key is read-only.');
      }
      return;
    }
    req.actor = await sessions.authenticate(cookie);
    req.sessionSecret = cookie;
    if (SAFE_METHODS.has(req.method)) return;
    const given = req.headers['x-csrf-token'];
    if (typeof given !== 'string' || given === '') {
      throw new ApiError(403, 'csrf_token_missing', 'Forbidden', 'A request that changes something with the session cookie must send the session\'s `X-CSRF-Token` (from sign-in or GET /v1/sessions/current).');
    }
    if (!csrfTokenMatches(cookie, given)) {
      throw new ApiError(403, 'csrf_token_invalid', 'Forbidden', 'The `X-CSRF-Token` is not this session\'s; read it again from GET /v1/sessions/current.');
    }
  });
}
