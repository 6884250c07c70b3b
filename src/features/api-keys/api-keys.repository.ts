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
  /** When the key stops working; null or absent: never. */
  expiresAt?: Date | null;
}

const COLUMNS = [
  'id', 'workspace_id', 'user_id', 'name', 'secret_prefix', 'read_only', 'created_by', 'created_at', 'revoked_at',
  'expires_at', 'last_used_at', 'rotated_at', 'previous_secret_expires_at',
] as const;

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
      expires_at: key.expiresAt ?? null,
    }).returning(COLUMNS).executeTakeFirstOrThrow();
    return { row, secret };
  }

  /**
   * Gives the key a new secret. The old one keeps working until `previousUntil` (`now`: not at
   * all; it is kept so that it is told apart from an unknown key); a secret kept from an earlier
   * rotation is dropped. Returns undefined for a revoked key.
   */
  async rotate(db: Executor, id: string, previousUntil: Date, now: Date): Promise<{ row: ApiKeyRow; secret: string } | undefined> {
    const secret = generateApiKeySecret();
    const row = await db.updateTable('api_keys')
      .set((eb) => ({
        previous_secret_hash: eb.ref('secret_hash'),
        previous_secret_expires_at: previousUntil,
        secret_hash: hashApiKeySecret(secret),
        secret_prefix: apiKeySecretPrefix(secret),
        rotated_at: now,
      }))
      .where('id', '=', id).where('revoked_at', 'is', null)
      .returning(COLUMNS).executeTakeFirst();
    return row && { row, secret };
  }

  get(db: Executor, workspaceId: string, id: string): Promise<ApiKeyRow | undefined> {
    return db.selectFrom('api_keys').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  list(db: Executor, workspaceId: string, filters: ApiKeyListFilters & { limit: number }, after: string | null): Promise<ApiKeyRow[]> {
    let q = db.selectFrom('api_keys').select(COLUMNS).where('workspace_id', '=', workspaceId);
    if (filters.user_id) q = q.where('user_id', '=', filters.user_id);
    const now = new Date();
    if (filters.status === 'active') q = q.where('revoked_at', 'is', null).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
    if (filters.status === 'expired') q = q.where('revoked_at', 'is', null).where('expires_at', '<=', now);
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
