import type { Executor } from '../../db/database.ts';
import { apiKeySecretPrefix, generateApiKeySecret, hashApiKeySecret } from '../../http/api-key-secret.ts';
import { newId } from '../../ids.ts';
import type { ApiKeyListFilters } from './api-keys.schemas.ts';
import type { ApiKeyRow } from './api-keys.views.ts';

export interface NewApiKey {
  workspaceId: string;
  userId: string;
  name: string;
  readOnly: boolean;
  createdBy: string | null;
}

const COLUMNS = ['id', 'workspace_id', 'user_id', 'name', 'secret_prefix', 'read_only', 'created_by', 'created_at', 'revoked_at'] as const;

export class ApiKeysRepository {
  /** Creates a key and returns its secret, which exists only in this return value. */
  async issue(db: Executor, key: NewApiKey): Promise<{ row: ApiKeyRow; secret: string }> {
    const secret = generateApiKeySecret();
    const row = await db.insertInto('api_keys').values({
      id: newId('apiKey'),
      workspace_id: key.workspaceId,
      user_id: key.userId,
      name: key.name,
      secret_hash: hashApiKeySecret(secret),
      secret_prefix: apiKeySecretPrefix(secret),
      read_only: key.readOnly,
      created_by: key.createdBy,
    }).returning(COLUMNS).executeTakeFirstOrThrow();
    return { row, secret };
  }

  get(db: Executor, workspaceId: string, id: string): Promise<ApiKeyRow | undefined> {
    return db.selectFrom('api_keys').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  list(db: Executor, workspaceId: string, filters: ApiKeyListFilters & { limit: number }, after: string | null): Promise<ApiKeyRow[]> {
    let q = db.selectFrom('api_keys').select(COLUMNS).where('workspace_id', '=', workspaceId);
    if (filters.user_id) q = q.where('user_id', '=', filters.user_id);
    if (filters.status === 'active') q = q.where('revoked_at', 'is', null);
    if (filters.status === 'revoked') q = q.where('revoked_at', 'is not', null);
    if (after) q = q.where('id', '<', after);
    return q.orderBy('id', 'desc').limit(filters.limit + 1).execute();
  }

  async revoke(db: Executor, id: string): Promise<void> {
    await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }

  async revokeAllOfUser(db: Executor, userId: string): Promise<void> {
    await db.updateTable('api_keys').set({ revoked_at: new Date() }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
  }
}
