import type { Role } from '../db/schema.ts';
import { forbidden } from './errors.ts';

/** Who is calling: the user behind the API key or the signed-in session, in one workspace. */
export interface Actor {
  workspaceId: string;
  userId: string;
  role: Role;
  /** The key of a bearer request; null for a session (cookie) request. */
  apiKeyId: string | null;
  /** The session of a cookie request; null for a bearer request. */
  sessionId: string | null;
  readOnly: boolean;
}

export const ROLES: readonly Role[] = ['admin', 'manager', 'standard', 'restricted'];

/** Higher rank, more power: admin 3, manager 2, standard 1, restricted 0. */
export const roleRank = (role: Role) => 3 - ROLES.indexOf(role);

export function requireRole(actor: Actor, allowed: readonly Role[], action: string): void {
  if (!allowed.includes(actor.role)) forbidden(`Your role (${actor.role}) may not ${action}.`);
}
