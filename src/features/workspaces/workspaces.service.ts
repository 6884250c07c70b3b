import type { Db, Tx } from '../../db/database.ts';
import { requireRole, type Actor } from '../../http/actor.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { notFound, validationFailed } from '../../http/errors.ts';
import { canonicalTimeZone } from '../../time-zones.ts';
import { newId } from '../../ids.ts';
import { ApiKeysRepository, type NewApiKey } from '../api-keys/api-keys.repository.ts';
import { toApiKeyView, type ApiKeyView } from '../api-keys/api-keys.views.ts';
import { EventLog } from '../events/events.log.ts';
import { UsersRepository } from '../users/users.repository.ts';
import { toUserView, type UserView } from '../users/users.views.ts';
import { WorkspacesRepository, type WorkspaceRow } from './workspaces.repository.ts';
import type { WorkspacePatchInput, WorkspaceView } from './workspaces.schemas.ts';

export const toWorkspaceView = (row: WorkspaceRow): WorkspaceView => ({
  id: row.id,
  name: row.name,
  time_zone: row.time_zone,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export interface ProvisionInput {
  name: string;
  adminEmail: string;
  adminFirstName?: string;
  adminLastName?: string;
  /** The first key's name (default "Initial admin key") and expiry (default none). */
  keyName?: string;
  keyExpiresAt?: Date | null;
}

export interface ProvisionedWorkspace {
  workspace: WorkspaceView;
  admin: UserView;
  api_key: ApiKeyView & { key: string };
}

export class WorkspacesService {
  private readonly workspaces = new WorkspacesRepository();
  private readonly users = new UsersRepository();
  private readonly keys = new ApiKeysRepository();

  /** The CLI provisions without an app, so the event log defaults to its own (it holds no state). */
  constructor(private readonly db: Db, private readonly events: EventLog = new EventLog()) {}

  async current(actor: Actor): Promise<WorkspaceView> {
    const row = await this.workspaces.get(this.db, actor.workspaceId) ?? notFound('workspace', actor.workspaceId);
    return toWorkspaceView(row);
  }

  /** Admins only. The time zone is checked against the runtime's IANA data and stored in its canonical spelling. */
  async update(actor: Actor, patch: WorkspacePatchInput, ifMatch: IfMatch): Promise<WorkspaceView> {
    requireRole(actor, ['admin'], 'change the workspace');
    const timeZone = patch.time_zone === undefined ? undefined : canonicalTimeZone(patch.time_zone);
    if (timeZone === null) return validationFailed([{ path: 'body.time_zone', message: 'must be an IANA time zone such as "America/Chicago" or "UTC"' }]);
    return this.db.transaction().execute(async (tx) => {
      const row = await this.workspaces.getForUpdate(tx, actor.workspaceId) ?? notFound('workspace', actor.workspaceId);
      checkIfMatch(ifMatch, toWorkspaceView(row));
      const changes = {
        ...(patch.name !== undefined && patch.name !== row.name ? { name: patch.name } : {}),
        ...(timeZone !== undefined && timeZone !== row.time_zone ? { time_zone: timeZone } : {}),
      };
      if (Object.keys(changes).length === 0) return toWorkspaceView(row);
      return toWorkspaceView(await this.workspaces.update(tx, row.id, changes));
    });
  }

  /** The operator's way in (CLI): a workspace, its first admin and that admin's first API key, all or nothing. */
  async provision(input: ProvisionInput): Promise<ProvisionedWorkspace> {
    return this.db.transaction().execute((tx) => this.provisionIn(tx, input));
  }

  /** The same inside the caller's transaction (an approved developer application: docs/developer-program.md). */
  async provisionIn(tx: Tx, input: ProvisionInput): Promise<ProvisionedWorkspace> {
    const workspace = await this.workspaces.insert(tx, { id: newId('workspace'), name: input.name });
    const handle = await this.users.freeHandle(tx, workspace.id, input.adminEmail);
    const admin = await this.users.insert(tx, {
      id: newId('user'), workspace_id: workspace.id, email: input.adminEmail, handle, role: 'admin',
      first_name: input.adminFirstName ?? null, last_name: input.adminLastName ?? null,
    });
    const issued = await this.keys.issue(tx, {
      workspaceId: workspace.id, userId: admin.id, name: input.keyName ?? 'Initial admin key', readOnly: false, createdBy: null,
      expiresAt: input.keyExpiresAt ?? null,
    } satisfies NewApiKey);
    const adminView = toUserView(admin);
    await this.events.emit(tx, { workspaceId: workspace.id, event: 'user.added', projectId: null, data: adminView });
    return {
      workspace: toWorkspaceView(workspace),
      admin: adminView,
      api_key: { ...toApiKeyView(issued.row), key: issued.secret },
    };
  }
}
