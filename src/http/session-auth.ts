import type { Db } from '../db/database.ts';
import type { Role } from '../db/schema.ts';
import type { Actor } from './actor.ts';
import { CredentialCache, digestOf } from './credential-cache.ts';
import { ApiError } from './errors.ts';
import { KeyUsageRecorder } from './key-usage.ts';
import { isWellFormedSecret } from './session-secret.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Last-use recording of sessions; `flush()` writes what is noted now (tests, shutdown). */
    sessionUsage: KeyUsageRecorder;
  }
}

/** A session ends after this long without a request (DESIGN §10). */
export const SESSION_IDLE_MS = 30 * 86_400_000;

type SessionLookup = { state: 'ok'; actor: Actor; lastUsedAt: number } | { state: 'unknown' };

const unauthorized = (code: string, detail: string) =>
  new ApiError(401, code, 'Unauthorized', detail, {}, { 'www-authenticate': 'Bearer realm="jobsite"' });

/**
 * Resolves session cookies to actors, as ApiKeyAuthenticator does bearer keys: a lookup is
 * cached for a few seconds (so signing out or deactivating reaches other processes within
 * `ttlMs`; this process drops its entries at once), and last use is recorded off the request
 * path, at most once a minute, which is what the 30-day idle expiry reads.
 */
export class SessionAuthenticator {
  private readonly cache: CredentialCache<SessionLookup>;
  readonly usage: KeyUsageRecorder;

  constructor(private readonly db: Db, ttlMs = 5_000, maxEntries = 10_000) {
    this.cache = new CredentialCache(ttlMs, maxEntries);
    this.usage = new KeyUsageRecorder(db, 60_000, 10_000, 'sessions');
  }

  async authenticate(secret: string): Promise<Actor> {
    if (!isWellFormedSecret(secret)) throw unauthorized('invalid_session', 'The session cookie is not one this server issued; sign in again.');
    const now = Date.now();
    const result = await this.cache.resolve(digestOf(secret), now, (hash) => this.lookup(hash));
    if (result.state === 'unknown') throw unauthorized('invalid_session', 'This session has ended (signed out, revoked, or its user deactivated); sign in again.');
    if (result.lastUsedAt + SESSION_IDLE_MS <= now) throw unauthorized('session_expired', 'This session was idle for 30 days and has ended; sign in again.');
    this.usage.touch(result.actor.sessionId!, now);
    return result.actor;
  }

  /** Drops cached lookups of a session or of every session of a user (sign-out, deactivation, role change). */
  forget(match: { sessionId?: string; userId?: string }): void {
    this.cache.forget((actor) => actor.sessionId === match.sessionId || actor.userId === match.userId);
  }

  private async lookup(hash: Buffer): Promise<SessionLookup> {
    const row = await this.db.selectFrom('sessions as s').innerJoin('users as u', 'u.id', 's.user_id')
      .select(['s.id', 's.workspace_id', 's.user_id', 's.last_used_at', 'u.role', 'u.status'])
      .where('s.token_hash', '=', hash).executeTakeFirst();
    if (!row || row.status !== 'active') return { state: 'unknown' };
    return {
      state: 'ok',
      actor: { workspaceId: row.workspace_id, userId: row.user_id, role: row.role as Role, apiKeyId: null, sessionId: row.id, readOnly: false },
      lastUsedAt: row.last_used_at.getTime(),
    };
  }
}
