import type { Selectable } from 'kysely';
import type { ApiKeysTable } from '../../db/schema.ts';
import type { ApiKeyView } from './api-keys.schemas.ts';

export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'secret_hash'>;
export type { ApiKeyView };

export const toApiKeyView = (k: ApiKeyRow): ApiKeyView => ({
  id: k.id,
  name: k.name,
  user_id: k.user_id,
  prefix: k.secret_prefix,
  read_only: k.read_only,
  created_by: k.created_by,
  created_at: k.created_at.toISOString(),
  revoked_at: k.revoked_at?.toISOString() ?? null,
  // Keys change only when revoked, so that is their version.
  updated_at: (k.revoked_at ?? k.created_at).toISOString(),
});
