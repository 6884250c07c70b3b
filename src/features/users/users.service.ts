import type { Db, Tx } from '../../db/database.ts';
import type { Role } from '../../db/schema.ts';
import { requireRole, roleRank, type Actor } from '../../http/actor.ts';
import type { ApiKeyAuthenticator } from '../../http/auth.ts';
import type { SessionAuthenticator } from '../../http/session-auth.ts';
import { conflict, forbidden, notFound, unprocessable } from '../../http/errors.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import { ApiKeysRepository } from '../api-keys/api-keys.repository.ts';
import type { EventType } from '../events/event-types.ts';
import type { EventLog } from '../events/events.log.ts';
import type { IssuedInvitation, PasswordTokens } from '../sessions/password-tokens.service.ts';
import { SessionsRepository } from '../sessions/sessions.repository.ts';
import { TasksService } from '../tasks/tasks.service.ts';
import { WorkspacesRepository } from '../workspaces/workspaces.repository.ts';
import type { UserCreateInput, UserListFilters, UserPatchInput } from './users.schemas.ts';
import { UsersRepository } from './users.repository.ts';
import { toUserView, type UserRow, type UserView } from './users.views.ts';

/** Unique-index violations, told apart by index name. */
function uniqueViolation(err: unknown): 'email' | 'handle' | null {
  const e = err as { code?: string; constraint?: string };
  if (e.code !== '23505') return null;
  if (e.constraint === 'users_email_per_workspace') return 'email';
  if (e.constraint === 'users_handle_per_workspace') return 'handle';
  return null;
}

/** Rethrows a unique-index violation as its 409 problem, and any other error as it is. */
function rethrowUniqueness(err: unknown): never {
  const field = uniqueViolation(err);
  if (field === 'email') conflict('email_taken', 'Another user of this workspace has that e-mail address.');
  if (field === 'handle') conflict('handle_taken', 'Another user of this workspace has that handle.');
  throw err;
}

/** The fields a patch actually changes (none when every given value equals the current one). */
function changesOf(user: UserRow, patch: UserPatchInput): UserPatchInput {
  const fields = Object.keys(patch) as (keyof UserPatchInput)[];
  return Object.fromEntries(fields.filter((f) => patch[f] !== undefined && patch[f] !== user[f]).map((f) => [f, patch[f]]));
}

/**
 * Users of a workspace. Who may do what:
 * - everyone reads the directory (needed for assigning and @mentions);
 * - admins manage everyone; managers manage users below admin and may not grant admin;
 * - everyone edits their own name, e-mail and handle; only admins change their own role or status.
 * Deactivating revokes all the user's keys and ends their sessions; the last active admin cannot be demoted or deactivated.
 * E-mail and handle are unique per workspace, case-insensitively. See docs/roles.md.
 * A new user gets an invitation to choose a password (docs/sign-in.md).
 * Every actual change emits its event (user.added, user.updated, user.removed) in its own
 * transaction; a write that changes nothing emits none.
 */
export class UsersService {
  private readonly users = new UsersRepository();
  private readonly keys = new ApiKeysRepository();
  private readonly sessions = new SessionsRepository();

  constructor(
    private readonly db: Db,
    private readonly auth: { keys: ApiKeyAuthenticator; sessions: SessionAuthenticator },
    private readonly events: EventLog,
    private readonly invitations: PasswordTokens,
  ) {}

  async me(actor: Actor): Promise<UserView> {
    return this.get(actor, actor.userId);
  }

  async get(actor: Actor, id: string): Promise<UserView> {
    const user = (isId('user', id) && await this.users.get(this.db, actor.workspaceId, id)) || notFound('user', id);
    return toUserView(user);
  }

  /** The workspace's users among `ids`, each as `get` returns it, in no particular order (sync's read of a page, one statement). */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<UserView[]> {
    return (await this.users.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('user', id)))).map(toUserView);
  }

  async list(actor: Actor, filters: UserListFilters & { limit: number }): Promise<PageOf<UserView>> {
    const [after] = decodeCursor(filters.cursor, 'id', 1) ?? [null];
    const rows = await this.users.list(this.db, actor.workspaceId, filters, after as string | null);
    return toPage(rows, filters.limit, 'id', (u) => [u.id], toUserView);
  }

  /** Adds the user and invites them: the link is returned to the caller, and e-mailed when SMTP is configured. */
  async create(actor: Actor, input: UserCreateInput): Promise<UserView & IssuedInvitation> {
    requireRole(actor, ['admin', 'manager'], 'add users');
    const role: Role = input.role ?? 'standard';
    this.requireMayGrant(actor, role);
    // A derived handle can be taken by a concurrent insert between choosing and inserting it: choose again.
    for (let attempt = 1; ; attempt++) {
      try {
        const { row, view, invitation } = await this.db.transaction().execute(async (tx) => {
          const handle = input.handle ?? await this.users.freeHandle(tx, actor.workspaceId, input.email);
          const row = await this.users.insert(tx, {
            id: newId('user'), workspace_id: actor.workspaceId, email: input.email, handle, role,
            first_name: input.first_name ?? null, last_name: input.last_name ?? null,
          });
          const invitation = await this.invitations.issueInvitation(tx, row.id);
          return { row, view: await this.emitChange(tx, 'user.added', row), invitation };
        });
        const [workspace, inviter] = await Promise.all([
          new WorkspacesRepository().get(this.db, actor.workspaceId), this.users.get(this.db, actor.workspaceId, actor.userId),
        ]);
        const inviterName = inviter ? [inviter.first_name, inviter.last_name].filter(Boolean).join(' ') || inviter.email : null;
        return { ...view, ...await this.invitations.mailInvitation(row, invitation, workspace?.name ?? 'Jobsite', inviterName) };
      } catch (err) {
        if (input.handle === undefined && uniqueViolation(err) === 'handle' && attempt < 5) continue;
        rethrowUniqueness(err);
      }
    }
  }

  async update(actor: Actor, id: string, patch: UserPatchInput, ifMatch: IfMatch): Promise<UserView> {
    if (!isId('user', id)) notFound('user', id);
    const updated = await this.db.transaction().execute(async (tx) => {
      const user = await this.users.getForUpdate(tx, actor.workspaceId, id) ?? notFound('user', id);
      const self = user.id === actor.userId;
      const changesAccess = patch.role !== undefined && patch.role !== user.role || patch.status !== undefined && patch.status !== user.status;
      if (self && changesAccess) requireRole(actor, ['admin'], 'change your own role or status');
      if (!self) this.requireMayManage(actor, user, 'edit this user');
      if (patch.role !== undefined && patch.role !== user.role) this.requireMayGrant(actor, patch.role);
      checkIfMatch(ifMatch, toUserView(user));
      const losesAdmin = user.role === 'admin' && user.status === 'active' &&
        ((patch.role !== undefined && patch.role !== 'admin') || patch.status === 'deactivated');
      if (losesAdmin) await this.requireAnotherAdmin(tx, actor.workspaceId);

      const changes = changesOf(user, patch);
      if (Object.keys(changes).length === 0) return toUserView(user);
      const row = await this.withUniqueness(() => this.users.update(tx, user.id, {
        ...changes,
        ...(changes.status === 'deactivated' ? { deactivated_at: new Date() } : {}),
        ...(changes.status === 'active' ? { deactivated_at: null } : {}),
      }));
      if (changes.status === 'deactivated') {
        await this.keys.revokeAllOfUser(tx, user.id);
        await this.sessions.deleteAllOfUser(tx, user.id);
        await TasksService.unassignOpenTasksOf(tx, this.events, actor.workspaceId, user.id);
      }
      // Deactivating by PATCH is the same act as DELETE, so integrators hear of it the same way.
      return this.emitChange(tx, changes.status === 'deactivated' ? 'user.removed' : 'user.updated', row);
    });
    this.forget(id);
    return updated;
  }

  /** DELETE deactivates: the user keeps authorship of their work, loses access, all their keys stop, and their open tasks are unassigned. */
  async deactivate(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    if (!isId('user', id)) notFound('user', id);
    await this.db.transaction().execute(async (tx) => {
      const user = await this.users.getForUpdate(tx, actor.workspaceId, id) ?? notFound('user', id);
      if (user.id === actor.userId) requireRole(actor, ['admin'], 'deactivate yourself');
      this.requireMayManage(actor, user, 'deactivate this user');
      checkIfMatch(ifMatch, toUserView(user));
      if (user.status === 'deactivated') return;
      if (user.role === 'admin') await this.requireAnotherAdmin(tx, actor.workspaceId);
      const row = await this.users.update(tx, user.id, { status: 'deactivated', deactivated_at: new Date() });
      await this.keys.revokeAllOfUser(tx, user.id);
      await this.sessions.deleteAllOfUser(tx, user.id);
      await TasksService.unassignOpenTasksOf(tx, this.events, actor.workspaceId, user.id);
      await this.emitChange(tx, 'user.removed', row);
    });
    this.forget(id);
  }

  /** Role and status are cached with each key and session lookup: drop them on this process now. */
  private forget(userId: string): void {
    this.auth.keys.forget({ userId });
    this.auth.sessions.forget({ userId });
  }

  /** Records a change in the event log, inside the change's transaction; `data` is the user as the API returns it. */
  private async emitChange(tx: Tx, event: Extract<EventType, `user.${string}`>, row: UserRow): Promise<UserView> {
    const view = toUserView(row);
    await this.events.emit(tx, { workspaceId: row.workspace_id, event, projectId: null, data: view });
    return view;
  }

  private requireMayManage(actor: Actor, target: UserRow, action: string): void {
    requireRole(actor, ['admin', 'manager'], action);
    if (actor.role === 'manager' && target.role === 'admin') forbidden('Managers may not change admins.');
  }

  private requireMayGrant(actor: Actor, role: Role): void {
    if (roleRank(role) > roleRank(actor.role) || (actor.role !== 'admin' && role === 'admin')) {
      forbidden(`Your role (${actor.role}) may not grant the ${role} role.`);
    }
  }

  private async requireAnotherAdmin(tx: Tx, workspaceId: string): Promise<void> {
    if (await this.users.countActiveAdminsLocked(tx, workspaceId) <= 1) {
      unprocessable('last_admin', 'This is the last active admin of the workspace; make someone else admin first.');
    }
  }

  private async withUniqueness<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      return rethrowUniqueness(err);
    }
  }
}
