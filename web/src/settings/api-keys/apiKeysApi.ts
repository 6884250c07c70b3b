import { request, type Page, type User } from '../../api.ts';

/** An API key as GET /v1/api-keys shows it (src/features/api-keys/api-keys.schemas.ts): never its secret. */
export interface ApiKey {
  id: string;
  name: string;
  user_id: string;
  /** The secret's first characters (`jsk_AbCd`), to tell keys apart. */
  prefix: string;
  read_only: boolean;
  status: 'active' | 'expired' | 'revoked';
  created_by: string | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  rotated_at: string | null;
  /** After a rotation: until when the old secret still works; null when it no longer does. */
  previous_secret_expires_at: string | null;
  revoked_at: string | null;
  updated_at: string;
}

/** What create and rotate answer: the key and its secret, shown this once. */
export interface ApiKeyWithSecret extends ApiKey {
  key: string;
}

/** A user as GET /v1/users lists them: a deactivated one's keys are all revoked. */
export interface WorkspaceUser extends User {
  status: 'active' | 'deactivated';
}

export type KeyStatusFilter = 'active' | 'expired' | 'revoked' | 'all';

export interface NewApiKey {
  name: string;
  read_only: boolean;
  /** Omitted: the key does not expire. */
  expires_at?: string;
  /** Admins only: whose key it is (the caller when omitted). */
  user_id?: string;
}

const keyPath = (id: string) => `/v1/api-keys/${encodeURIComponent(id)}`;

export const apiKeysApi = {
  list: (query: { status: KeyStatusFilter; user_id?: string; cursor?: string | null; limit?: number }) =>
    request<Page<ApiKey>>('GET', '/v1/api-keys', { query }),
  create: (body: NewApiKey) => request<ApiKeyWithSecret>('POST', '/v1/api-keys', { body }),
  /** A new secret; the old one keeps working for `graceSeconds` (0: stops at once). */
  rotate: (id: string, graceSeconds: number) => request<ApiKeyWithSecret>('POST', `${keyPath(id)}/rotate`, { body: { grace_seconds: graceSeconds } }),
  revoke: (id: string) => request<void>('DELETE', keyPath(id)),
  /** Every user of the workspace (deactivated ones too: their keys are still listed), 100 a page. */
  async allUsers(): Promise<WorkspaceUser[]> {
    const users: WorkspaceUser[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<WorkspaceUser> = await request<Page<WorkspaceUser>>('GET', '/v1/users', { query: { status: 'all', limit: 100, cursor } });
      users.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return users;
  },
};
