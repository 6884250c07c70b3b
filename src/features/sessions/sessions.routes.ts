import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { Page } from '../../http/pagination.ts';
import { clearedSessionCookie, sessionCookie } from '../../http/session-secret.ts';
import type { App } from '../../http/types.ts';
import type { PasswordTokens } from './password-tokens.service.ts';
import {
  Invitation, InvitationAccept, PasswordReset, PasswordResetRequest, PasswordResetRequested, Session, SessionIdParams,
  SessionListQuery, SignedInSession, SignIn, TokenParams, type SignedInSessionView,
} from './sessions.schemas.ts';
import type { SessionsService } from './sessions.service.ts';

const tags = ['Sessions'];
const publicRoute = { auth: false };
// The server ends idle sessions (30 days); the cookie itself lives as long as browsers allow (400 days).
const COOKIE_MAX_AGE_SECONDS = 400 * 86_400;

export function sessionRoutes(app: App, sessions: SessionsService, tokens: PasswordTokens, publicUrl: string): void {
  const secure = publicUrl.startsWith('https:');
  const signedIn = (reply: FastifyReply, { secret, session }: { secret: string; session: SignedInSessionView }) => {
    reply.code(201).header('location', `/v1/sessions/${session.id}`)
      .header('set-cookie', sessionCookie(secret, { secure, maxAgeSeconds: COOKIE_MAX_AGE_SECONDS }))
      .header('cache-control', 'no-store');
    return session;
  };
  const client = (req: { ip: string; headers: { 'user-agent'?: string } }) => ({ address: req.ip, userAgent: req.headers['user-agent'] ?? null });

  app.post('/v1/sessions', {
    config: publicRoute,
    schema: { tags, summary: 'Sign in with e-mail and password (sets the session cookie)', body: SignIn, response: { 201: SignedInSession } },
  }, async (req, reply) => signedIn(reply, await sessions.signIn(req.body, client(req))));

  app.get('/v1/sessions', { schema: { tags, summary: 'List your sessions (newest first)', querystring: SessionListQuery, response: { 200: Page(Session, 'SessionPage') } } },
    (req) => sessions.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/sessions/current', { schema: { tags, summary: 'The session of this request, with its CSRF token', response: { 200: SignedInSession } } },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return sessions.current(req.actor, req.sessionSecret);
    });

  app.get('/v1/sessions/:id', { schema: { tags, summary: 'Get one of your sessions', params: SessionIdParams, response: { 200: Session } } },
    (req) => sessions.get(req.actor, req.params.id));

  app.delete('/v1/sessions/current', { schema: { tags, summary: 'Sign out: end the session of this request', response: { 204: Type.Null() } } },
    async (req, reply) => {
      await sessions.signOut(req.actor);
      return reply.code(204).header('set-cookie', clearedSessionCookie(secure)).send(null);
    });

  app.delete('/v1/sessions/:id', { schema: { tags, summary: 'End one of your sessions (e.g. a lost phone\'s)', params: SessionIdParams, response: { 204: Type.Null() } } },
    async (req, reply) => {
      await sessions.revoke(req.actor, req.params.id);
      if (req.params.id === req.actor.sessionId) reply.header('set-cookie', clearedSessionCookie(secure));
      return reply.code(204).send(null);
    });

  app.post('/v1/password-resets', {
    config: publicRoute,
    schema: { tags, summary: 'Ask for a password reset link by e-mail (always 202)', body: PasswordResetRequest, response: { 202: PasswordResetRequested } },
  }, async (req, reply) => {
    await tokens.requestReset(req.body.email.trim(), req.ip);
    return reply.code(202).send({ status: 'accepted', detail: 'If this address belongs to someone here, a link to choose a new password is on its way (it works for 1 hour).' });
  });

  app.post('/v1/password-resets/:token', {
    config: publicRoute,
    schema: { tags, summary: 'Set a new password with a reset link (ends every session of the user)', params: TokenParams, body: PasswordReset, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await tokens.resetPassword(req.params.token, req.body.password);
    return reply.code(204).send(null);
  });

  app.get('/v1/invitations/:token', {
    config: publicRoute,
    schema: { tags, summary: 'Who an invitation is for (to greet them)', params: TokenParams, response: { 200: Invitation } },
  }, (req) => tokens.describeInvitation(req.params.token));

  app.post('/v1/invitations/:token', {
    config: publicRoute,
    schema: { tags, summary: 'Accept an invitation: choose a password, and be signed in', params: TokenParams, body: InvitationAccept, response: { 201: SignedInSession } },
  }, async (req, reply) => {
    const userId = await tokens.acceptInvitation(req.params.token, req.body);
    return signedIn(reply, await sessions.start(userId, client(req).userAgent));
  });
}
