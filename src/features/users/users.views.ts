import type { Selectable } from 'kysely';
import type { UsersTable } from '../../db/schema.ts';
import type { UserView } from './users.schemas.ts';

export type UserRow = Selectable<UsersTable>;
export type { UserView };

export const toUserView = (u: UserRow): UserView => ({
  id: u.id,
  email: u.email,
  first_name: u.first_name,
  last_name: u.last_name,
  handle: u.handle,
  role: u.role,
  status: u.status,
  created_at: u.created_at.toISOString(),
  updated_at: u.updated_at.toISOString(),
  deactivated_at: u.deactivated_at?.toISOString() ?? null,
});
