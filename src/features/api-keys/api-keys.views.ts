import type { Selectable } from 'kysely';
import type { ApiKeysTable } from '../../db/schema.ts';
import type { ApiKeyView } from './api-keys.schemas.ts';

export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'secret_hash' | 'previous_secret_hash'>;
export type { ApiKeyView };

const latest = (...dates: (Date | null)[]) => new Date(Math.max(...dates.filter((d): d is Date => d !== null).map((d) => d.getTime())));

export function apiKeyStatus(k: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now = Date.now()): ApiKeyView['status'] {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at && k.expires_at.getTime() <= now) return 'expired';
  return 'active';
}

export const toApiKeyView = (k: ApiKeyRow, now = Date.now()): ApiKeyView => ({
  id: k.id,
  name: k.name,
  user_id: k.user_id,
  prefix: k.secret_prefix,
  read_only: k.read_only,
  status: apiKeyStatus(k, now),
  created_by: k.created_by,
  created_at: k.created_at.toISOString(),
  expires_at: k.expires_at?.toISOString() ?? null,
  last_used_at: k.last_used_at?.toISOString() ?? null,
  rotated_at: k.rotated_at?.toISOString() ?? null,
  // Only while the old secret still works.
  previous_secret_expires_at: k.previous_secret_expires_at && k.previous_secret_expires_at.getTime() > now
    ? k.previous_secret_expires_at.toISOString() : null,
  revoked_at: k.revoked_at?.toISOString() ?? null,
  // A key changes when it is rotated, revoked or used (last_used_at), so that is its version.
  updated_at: latest(k.created_at, k.rotated_at, k.revoked_at, k.last_used_at).toISOString(),
});
