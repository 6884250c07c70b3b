import type { Executor } from '../../db/database.ts';
import type { WorkspacesTable } from '../../db/schema.ts';
import type { Selectable } from 'kysely';
import { bumpUpdatedAt } from '../users/users.repository.ts';

export type WorkspaceRow = Selectable<WorkspacesTable>;

export class WorkspacesRepository {
  get(db: Executor, id: string): Promise<WorkspaceRow | undefined> {
    return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  }

  getForUpdate(db: Executor, id: string): Promise<WorkspaceRow | undefined> {
    return db.selectFrom('workspaces').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  update(db: Executor, id: string, changes: { name?: string; time_zone?: string }): Promise<WorkspaceRow> {
    return db.updateTable('workspaces').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  insert(db: Executor, row: { id: string; name: string }): Promise<WorkspaceRow> {
    return db.insertInto('workspaces').values(row).returningAll().executeTakeFirstOrThrow();
  }
}
