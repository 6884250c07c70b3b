/**
 * The office side's calls: the workspace's people (GET, POST /v1/users, PATCH /v1/users/{id}) and
 * the workspace itself (GET, PATCH /v1/workspace). Shapes as in src/features/users/users.schemas.ts
 * and src/features/workspaces/workspaces.schemas.ts.
 */
import { request, requestWithEtag, type Page } from '../api.ts';

export type Role = 'admin' | 'manager' | 'standard' | 'restricted';
export const ROLES: readonly Role[] = ['admin', 'manager', 'standard', 'restricted'];

/** What each role may do, in a few words (src/features/users/users.schemas.ts, docs/roles.md). */
export const ROLE_WORDS: Record<Role, string> = {
  admin: 'everything, the workspace and its people included',
  manager: 'all projects, and the people below admin',
  standard: 'all projects\' content',
  restricted: 'only the projects they belong to or created',
};

export interface Person {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  handle: string;
  role: Role;
  status: 'active' | 'deactivated';
  created_at: string;
  updated_at: string;
  deactivated_at: string | null;
}

/** POST /v1/users's answer: the person and their invitation link (e-mailed or not). */
export interface InvitedPerson extends Person {
  invite_url: string;
  invite_expires_at: string;
  invite_emailed: boolean;
}

export interface PersonInvite {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  role: Role;
}

export interface Workspace {
  id: string;
  name: string;
  time_zone: string;
  created_at: string;
  updated_at: string;
}

export type StatusFilter = 'active' | 'deactivated' | 'all';

const userPath = (id: string) => `/v1/users/${encodeURIComponent(id)}`;

export const peopleApi = {
  list: (query: { status: StatusFilter; role?: Role | ''; cursor?: string | null; limit?: number }) =>
    request<Page<Person>>('GET', '/v1/users', { query }),
  invite: (body: PersonInvite) => request<InvitedPerson>('POST', '/v1/users', { body }),
  /** Role or status: a deliberate act on the person as listed, so no If-Match (see docs/decisions.md). */
  update: (id: string, body: { role?: Role; status?: 'active' | 'deactivated' }) => request<Person>('PATCH', userPath(id), { body }),
  workspace: () => requestWithEtag<Workspace>('GET', '/v1/workspace'),
  updateWorkspace: (body: { name?: string; time_zone?: string }, etag: string | null) =>
    requestWithEtag<Workspace>('PATCH', '/v1/workspace', { body, ifMatch: etag ?? undefined }),
};

export function personName(p: Pick<Person, 'first_name' | 'last_name' | 'email'>): string {
  return [p.first_name, p.last_name].filter(Boolean).join(' ') || p.email;
}

const rank = (role: Role) => 3 - ROLES.indexOf(role);

/** The roles `caller` may give (the API's requireMayGrant): none above their own, and admin only by an admin. */
export function grantableRoles(caller: string): Role[] {
  const me = caller as Role;
  if (me !== 'admin' && me !== 'manager') return [];
  return ROLES.filter((r) => rank(r) <= rank(me) && (me === 'admin' || r !== 'admin'));
}

/**
 * Whether `caller` may change this person's role or status (the API's requireMayManage): admins
 * anyone, managers anyone below admin. Not oneself here: an admin's own demotion or deactivation
 * is left to the API (docs/decisions.md).
 */
export function mayManage(caller: { id: string; role: string }, person: Person): boolean {
  if (person.id === caller.id) return false;
  return caller.role === 'admin' || (caller.role === 'manager' && person.role !== 'admin');
}
