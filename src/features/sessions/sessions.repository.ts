import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { SessionsTable, UserTokensTable } from '../../db/schema.ts';
import type { Selectable } from 'kysely';
import type { UserRow } from '../users/users.views.ts';

export type SessionRow = Selectable<SessionsTable>;
export type UserTokenRow = Selectable<UserTokensTable>;

/** Sessions, passwords and the invitation and reset tokens: the only SQL of sign-in. */
export class SessionsRepository {
  /** Active users with this e-mail (any workspace), oldest first; `workspaceId` narrows to one. */
  activeUsersByEmail(db: Executor, email: string, workspaceId?: string): Promise<UserRow[]> {
    let q = db.selectFrom('users').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).where('status', '=', 'active');
    if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
    return q.orderBy('id').limit(20).execute();
  }

  getUser(db: Executor, id: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insertSession(db: Executor, row: { id: string; workspace_id: string; user_id: string; token_hash: Buffer; user_agent: string | null }): Promise<SessionRow> {
    return db.insertInto('sessions').values(row).returningAll().executeTakeFirstOrThrow();
  }

  listForUser(db: Executor, userId: string, limit: number, after: string | null, idleSince: Date): Promise<SessionRow[]> {
    let q = db.selectFrom('sessions').selectAll().where('user_id', '=', userId).where('last_used_at', '>', idleSince);
    if (after) q = q.where('id', '<', after);
    return q.orderBy('id', 'desc').limit(limit + 1).execute();
  }

  getForUser(db: Executor, userId: string, id: string, idleSince: Date): Promise<SessionRow | undefined> {
    return db.selectFrom('sessions').selectAll().where('user_id', '=', userId).where('id', '=', id)
      .where('last_used_at', '>', idleSince).executeTakeFirst();
  }

  async deleteForUser(db: Executor, userId: string, id: string): Promise<boolean> {
    const row = await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '=', id).returning('id').executeTakeFirst();
    return row !== undefined;
  }

  /** Ends every session of a user (deactivation, password reset). */
  async deleteAllOfUser(db: Executor, userId: string): Promise<void> {
    await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  /** Sessions idle past the limit are gone for good; removed as new ones are made. */
  async deleteIdle(db: Executor, idleSince: Date): Promise<void> {
    await db.deleteFrom('sessions').where('last_used_at', '<=', idleSince).execute();
  }

  /** Sets the password; names too when given (only then does the user, as the API shows it, change). */
  async setPassword(db: Executor, userId: string, passwordHash: string, names: { first_name?: string; last_name?: string } = {}): Promise<UserRow> {
    const renamed = Object.keys(names).length > 0;
    return db.updateTable('users')
      .set({ password_hash: passwordHash, ...names, ...(renamed ? { updated_at: sql`greatest(now(), updated_at + interval '1 millisecond')` } : {}) })
      .where('id', '=', userId).returningAll().executeTakeFirstOrThrow();
  }

  /** A new token of `kind` for the user; the user's earlier unused ones of that kind stop working. */
  async issueToken(db: Executor, row: { token_hash: Buffer; user_id: string; kind: 'invite' | 'reset'; expires_at: Date }): Promise<void> {
    await db.updateTable('user_tokens').set({ used_at: new Date() })
      .where('user_id', '=', row.user_id).where('kind', '=', row.kind).where('used_at', 'is', null).execute();
    await db.insertInto('user_tokens').values(row).execute();
  }

  getToken(db: Executor, hash: Buffer, kind: 'invite' | 'reset') {
    return db.selectFrom('user_tokens as t').innerJoin('users as u', 'u.id', 't.user_id').innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
      .select(['t.user_id', 't.expires_at', 't.used_at', 'u.email', 'u.first_name', 'u.last_name', 'u.status', 'u.workspace_id', 'w.name as workspace_name'])
      .where('t.token_hash', '=', hash).where('t.kind', '=', kind).executeTakeFirst();
  }

  /** Marks the token used; false when another request used it first (single use, even under races). */
  async useToken(db: Executor, hash: Buffer): Promise<boolean> {
    const row = await db.updateTable('user_tokens').set({ used_at: new Date() })
      .where('token_hash', '=', hash).where('used_at', 'is', null).returning('user_id').executeTakeFirst();
    return row !== undefined;
  }
}
