import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { preconditionFailed } from './errors.ts';
import { addRouteHook, methodsOf } from './route-hooks.ts';

/**
 * ETags are strong validators derived from a resource's id and `updated_at` (which every write
 * moves forward by at least a millisecond), so they survive representation details such as
 * freshly signed URLs. GET answers 304 to a matching If-None-Match; writes honour If-Match.
 */
export interface Versioned {
  id: string;
  updated_at: string | Date;
}

export function etagOf(resource: Versioned): string {
  const stamp = resource.updated_at instanceof Date ? resource.updated_at.toISOString() : resource.updated_at;
  return `"${crypto.createHash('sha256').update(`${resource.id}@${stamp}`).digest('base64url').slice(0, 22)}"`;
}

const listMatches = (header: string, etag: string) =>
  header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);

/** The If-Match precondition of a write, checked by the service against the row it locked. */
export type IfMatch = string | undefined;

export const ifMatchOf = (req: FastifyRequest): IfMatch => req.headers['if-match'];

export function checkIfMatch(ifMatch: IfMatch, current: Versioned): void {
  if (ifMatch === undefined) return;
  // Weak tags never match for If-Match (RFC 9110 §13.1.1 uses the strong comparison).
  const tags = ifMatch.split(',').map((t) => t.trim());
  const etag = etagOf(current);
  if (!tags.includes('*') && !tags.includes(etag)) {
    preconditionFailed(`The object changed: its ETag is now ${etag}.`);
  }
}

export function registerEtags(app: FastifyInstance): void {
  const answersWithObjects = (route: RouteOptions) => !methodsOf(route).includes('DELETE');
  const isRead = (route: RouteOptions) => methodsOf(route).some((m) => m === 'GET' || m === 'HEAD');
  addRouteHook(app, 'preSerialization', answersWithObjects, async (_req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const body = payload as Partial<Versioned> | null;
    if (body && typeof body === 'object' && typeof body.id === 'string' && body.updated_at !== undefined &&
      !('data' in body) && reply.statusCode < 300) {
      reply.header('etag', etagOf(body as Versioned));
    }
    return payload;
  });
  addRouteHook(app, 'onSend', isRead, async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const etag = reply.getHeader('etag');
    const inm = req.headers['if-none-match'];
    if ((req.method === 'GET' || req.method === 'HEAD') && reply.statusCode === 200 && typeof etag === 'string' && inm && listMatches(inm, etag)) {
      reply.code(304);
      reply.removeHeader('content-length');
      reply.removeHeader('content-type');
      return '';
    }
    return payload;
  });
}
