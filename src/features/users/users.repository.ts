import { sql, type Insertable, type SqlBool, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { UsersTable } from '../../db/schema.ts';
import type { UserListFilters } from './users.schemas.ts';
import type { UserRow } from './users.views.ts';

/** Moves updated_at forward by at least 1 ms, so every write changes the ETag. */
export const bumpUpdatedAt = sql<Date>`greatest(now(), updated_at + interval '1 millisecond')`;

export class UsersRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  /** The workspace's users among `ids`, in no particular order, in one statement. */
  getMany(db: Executor, workspaceId: string, ids: readonly string[]): Promise<UserRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId).where(sql<SqlBool>`id = any(${ids}::text[])`).execute();
  }

  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  getByEmail(db: Executor, workspaceId: string, email: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId)
      .where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
  }

  list(db: Executor, workspaceId: string, filters: UserListFilters & { limit: number }, after: string | null): Promise<UserRow[]> {
    let q = db.selectFrom('users').selectAll().where('workspace_id', '=', workspaceId);
    if (filters.status && filters.status !== 'all') q = q.where('status', '=', filters.status);
    if (filters.role) q = q.where('role', '=', filters.role);
    if (after) q = q.where('id', '<', after);
    return q.orderBy('id', 'desc').limit(filters.limit + 1).execute();
  }

  insert(db: Executor, row: Insertable<UsersTable>): Promise<UserRow> {
    return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
  }

  update(db: Executor, id: string, changes: Updateable<UsersTable>): Promise<UserRow> {
    return db.updateTable('users').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  /**
   * The number of active admins, counted after locking the workspace row: two concurrent
   * demotions (or deactivations) of different admins would otherwise both see "another admin"
   * and leave the workspace with none. FOR NO KEY UPDATE does not block inserts that reference
   * the workspace.
   */
  async countActiveAdminsLocked(db: Executor, workspaceId: string): Promise<number> {
    await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forNoKeyUpdate().execute();
    const { n } = await db.selectFrom('users').select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', workspaceId).where('role', '=', 'admin').where('status', '=', 'active')
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async isHandleTaken(db: Executor, workspaceId: string, handle: string, exceptUserId?: string): Promise<boolean> {
    let q = db.selectFrom('users').select('id').where('workspace_id', '=', workspaceId).where(sql`lower(handle)`, '=', handle.toLowerCase());
    if (exceptUserId) q = q.where('id', '<>', exceptUserId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  /** A handle made from the e-mail's local part, with a numeric suffix when taken. */
  async freeHandle(db: Executor, workspaceId: string, email: string): Promise<string> {
    // Cut to length before trimming dashes: a handle may neither start nor end with one.
    const base = email.split('@')[0]!.toLowerCase().replace(/[^a-z0-9_-]+/g, '').slice(0, 32).replace(/^-+|-+$/g, '') || 'user';
    const taken = new Set((await db.selectFrom('users').select(sql<string>`lower(handle)`.as('h'))
      .where('workspace_id', '=', workspaceId).where(sql`lower(handle)`, 'like', `${base.replace(/_/g, '\\_')}%`).execute()).map((r) => r.h));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }
}
