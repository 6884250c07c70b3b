import type { Executor } from '../../db/database.ts';
import type { WorkspacesTable } from '../../db/schema.ts';
import type { Selectable } from 'kysely';

export type WorkspaceRow = Selectable<WorkspacesTable>;

export class WorkspacesRepository {
  get(db: Executor, id: string): Promise<WorkspaceRow | undefined> {
    return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(db: Executor, row: { id: string; name: string }): Promise<WorkspaceRow> {
    return db.insertInto('workspaces').values(row).returningAll().executeTakeFirstOrThrow();
  }
}
