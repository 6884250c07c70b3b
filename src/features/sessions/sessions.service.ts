import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { clientBucket } from '../../http/client-address.ts';
import { ApiError, badRequest, notFound } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import type { RateLimiter } from '../../http/rate-limit.ts';
import { SESSION_IDLE_MS, type SessionAuthenticator } from '../../http/session-auth.ts';
import { csrfTokenOf, hashSecret, newSecret } from '../../http/session-secret.ts';
import { isId, newId } from '../../ids.ts';
import { toUserView, type UserRow } from '../users/users.views.ts';
import { burnPasswordCheck, verifyPassword } from './passwords.ts';
import type { SessionView, SignedInSessionView, SignInInput } from './sessions.schemas.ts';
import { SessionsRepository, type SessionRow } from './sessions.repository.ts';

const invalidCredentials = (): never => {
  throw new ApiError(401, 'invalid_credentials', 'Unauthorized', 'The e-mail address or the password is wrong.', {}, { 'www-authenticate': 'Bearer realm="jobsite"' });
};

const toSessionView = (row: SessionRow, currentId: string | null): SessionView => ({
  id: row.id,
  current: row.id === currentId,
  user_agent: row.user_agent,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at.toISOString(),
  expires_at: new Date(row.last_used_at.getTime() + SESSION_IDLE_MS).toISOString(),
});

export interface SignInLimiters {
  /** Failures per e-mail address (JOBSITE_SIGN_IN_FAILURES_PER_EMAIL per 15 minutes). */
  perEmail: RateLimiter;
  /** Failures per client address (JOBSITE_SIGN_IN_FAILURES_PER_ADDRESS per 15 minutes). */
  perAddress: RateLimiter;
}

/**
 * Browser sign-in. One answer for every failure (401 invalid_credentials: wrong password, unknown
 * address, deactivated user, no password yet), each costing one scrypt, so neither the answer nor
 * its time tells whether an address is known. Failures are counted per address and per client;
 * past the limit even a right password is refused (429) until the window ends.
 */
export class SessionsService {
  private readonly repo = new SessionsRepository();
  /** Sign-ins being checked now, per limiter bucket (this process). */
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly db: Db, private readonly authenticator: SessionAuthenticator, private readonly limiters: SignInLimiters) {}

  async signIn(input: SignInInput, client: { address: string; userAgent: string | null }): Promise<{ secret: string; session: SignedInSessionView }> {
    const email = input.email.trim().toLowerCase();
    const buckets = [`signin:email:${email}`, `signin:addr:${clientBucket(client.address)}`] as const;
    const [byEmail, byAddress] = await Promise.all([this.limiters.perEmail.peek(buckets[0]), this.limiters.perAddress.peek(buckets[1])]);
    // Attempts still being checked count too: a burst of parallel guesses gets no more tries than a sequence.
    const emailFull = byEmail.remaining <= this.checking(buckets[0]);
    const addressFull = byAddress.remaining <= this.checking(buckets[1]);
    if (emailFull || addressFull) {
      const wait = Math.max(emailFull ? byEmail.resetSeconds : 0, addressFull ? byAddress.resetSeconds : 0);
      throw new ApiError(429, 'sign_in_rate_limited', 'Too many requests',
        `Too many failed sign-ins ${emailFull ? 'for this e-mail address' : 'from your address'}; try again in ${wait} s.`, {}, { 'retry-after': String(wait) });
    }
    for (const b of buckets) this.inFlight.set(b, this.checking(b) + 1);
    let user: UserRow | null;
    try {
      user = await this.matchingUser(email, input.password, input.workspace_id);
      if (!user) await Promise.all([this.limiters.perEmail.hit(buckets[0]), this.limiters.perAddress.hit(buckets[1])]);
    } finally {
      for (const b of buckets) {
        const left = this.checking(b) - 1;
        if (left > 0) this.inFlight.set(b, left);
        else this.inFlight.delete(b);
      }
    }
    if (!user) return invalidCredentials();
    return this.start(user, client.userAgent);
  }

  private checking = (bucket: string) => this.inFlight.get(bucket) ?? 0;

  /** A new session for the user (after a sign-in or an accepted invitation). */
  async start(userOrId: UserRow | string, userAgent: string | null): Promise<{ secret: string; session: SignedInSessionView }> {
    const user = typeof userOrId === 'string' ? await this.repo.getUser(this.db, userOrId) : userOrId;
    if (!user || user.status !== 'active') return invalidCredentials();
    const secret = newSecret();
    const row = await this.repo.insertSession(this.db, {
      id: newId('session'), workspace_id: user.workspace_id, user_id: user.id, token_hash: hashSecret(secret),
      user_agent: userAgent?.slice(0, 300) ?? null,
    });
    // Sessions idle past the limit can no longer be used; sweeping them here keeps the table small.
    await this.repo.deleteIdle(this.db, new Date(Date.now() - SESSION_IDLE_MS));
    return { secret, session: { ...toSessionView(row, row.id), user: toUserView(user), csrf_token: csrfTokenOf(secret) } };
  }

  async list(actor: Actor, query: { limit: number; cursor?: string }): Promise<PageOf<SessionView>> {
    const [after] = decodeCursor(query.cursor, 'id', 1) ?? [null];
    const rows = await this.repo.listForUser(this.db, actor.userId, query.limit, after as string | null, this.idleSince());
    return toPage(rows, query.limit, 'id', (s) => [s.id], (s) => toSessionView(s, actor.sessionId));
  }

  async get(actor: Actor, id: string): Promise<SessionView> {
    const row = (isId('session', id) && await this.repo.getForUser(this.db, actor.userId, id, this.idleSince())) || notFound('session', id);
    return toSessionView(row, actor.sessionId);
  }

  async current(actor: Actor, secret: string | null): Promise<SignedInSessionView> {
    if (!actor.sessionId || !secret) return badRequest('session_required', 'This request was made with an API key, not a session cookie: there is no current session.');
    const row = await this.repo.getForUser(this.db, actor.userId, actor.sessionId, this.idleSince()) ?? notFound('session', actor.sessionId);
    const user = await this.repo.getUser(this.db, actor.userId) ?? notFound('user', actor.userId);
    return { ...toSessionView(row, row.id), user: toUserView(user), csrf_token: csrfTokenOf(secret) };
  }

  /** Ends one of the caller's sessions (their own only: a session is a person's, not the workspace's). */
  async revoke(actor: Actor, id: string): Promise<void> {
    if (!isId('session', id) || !await this.repo.deleteForUser(this.db, actor.userId, id)) notFound('session', id);
    this.authenticator.forget({ sessionId: id });
  }

  async signOut(actor: Actor): Promise<void> {
    if (!actor.sessionId) badRequest('session_required', 'This request was made with an API key, not a session cookie: there is no session to sign out of.');
    await this.repo.deleteForUser(this.db, actor.userId, actor.sessionId!);
    this.authenticator.forget({ sessionId: actor.sessionId! });
  }

  /** The first candidate whose password matches; one scrypt per candidate, and one for an unknown address. */
  private async matchingUser(email: string, password: string, workspaceId: string | undefined): Promise<UserRow | null> {
    const candidates = (await this.repo.activeUsersByEmail(this.db, email, workspaceId)).filter((u) => u.password_hash);
    if (candidates.length === 0) {
      await burnPasswordCheck(password);
      return null;
    }
    for (const user of candidates) if (await verifyPassword(password, user.password_hash!)) return user;
    return null;
  }

  private idleSince = () => new Date(Date.now() - SESSION_IDLE_MS);
}
