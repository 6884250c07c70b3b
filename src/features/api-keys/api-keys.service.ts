import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import type { ApiKeyAuthenticator } from '../../http/auth.ts';
import { conflict, forbidden, notFound, unprocessable, validationFailed } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isId } from '../../ids.ts';
import { UsersRepository } from '../users/users.repository.ts';
import { ApiKeysRepository } from './api-keys.repository.ts';
import { DEFAULT_KEY_GRACE_SECONDS, type ApiKeyCreateInput, type ApiKeyListFilters, type ApiKeyRotateInput } from './api-keys.schemas.ts';
import { apiKeyStatus, toApiKeyView, type ApiKeyRow, type ApiKeyView } from './api-keys.views.ts';

/**
 * API keys. Everyone manages their own keys; admins see, create and revoke anyone's:
 * - the secret is returned once, by create; only its hash is stored, and no view shows either;
 * - non-admins creating a key for someone else get 403, and a deactivated user gets none (422);
 * - non-admins list only their own keys (asking for another user's is 403); another user's key
 *   is invisible to them (404), so is another workspace's to anyone;
 * - revoking is idempotent, and this process forgets the key at once (others within the
 *   authenticator's cache TTL);
 * - a key may expire (`expires_at`, set at creation, in the future); rotating gives it a new
 *   secret and keeps the old one working for a grace period (default 24 h; 0 ends it at once).
 * A key acts with its user's current role; a read-only key cannot write at all. See docs/roles.md.
 */
export class ApiKeysService {
  private readonly keys = new ApiKeysRepository();
  private readonly users = new UsersRepository();

  constructor(private readonly db: Db, private readonly authenticator: ApiKeyAuthenticator) {}

  async list(actor: Actor, filters: ApiKeyListFilters & { limit: number }): Promise<PageOf<ApiKeyView>> {
    const [after] = decodeCursor(filters.cursor, 'id', 1) ?? [null];
    const scoped = actor.role === 'admin' ? filters : { ...filters, user_id: actor.userId };
    if (actor.role !== 'admin' && filters.user_id && filters.user_id !== actor.userId) {
      forbidden('Only admins may list other users\' keys.');
    }
    // A user id of the wrong shape matches no key (and must not reach the database: it may hold a NUL).
    if (scoped.user_id !== undefined && !isId('user', scoped.user_id)) return { data: [], has_more: false, next_cursor: null };
    const rows = await this.keys.list(this.db, actor.workspaceId, scoped, after as string | null);
    return toPage(rows, filters.limit, 'id', (k) => [k.id], toApiKeyView);
  }

  async get(actor: Actor, id: string): Promise<ApiKeyView> {
    return toApiKeyView(await this.visibleKey(actor, id));
  }

  async create(actor: Actor, input: ApiKeyCreateInput): Promise<ApiKeyView & { key: string }> {
    const userId = input.user_id ?? actor.userId;
    if (userId !== actor.userId && actor.role !== 'admin') forbidden('Only admins may create keys for other users.');
    const user = (isId('user', userId) && await this.users.get(this.db, actor.workspaceId, userId)) || notFound('user', userId);
    if (user.status !== 'active') unprocessable('user_inactive', 'The user is deactivated; reactivate them first.');
    const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
    if (expiresAt && !(expiresAt.getTime() > Date.now())) {
      validationFailed([{ path: 'body.expires_at', message: 'must be in the future' }], 'body.expires_at must be in the future');
    }
    const { row, secret } = await this.keys.issue(this.db, {
      workspaceId: actor.workspaceId, userId, name: input.name, readOnly: input.read_only ?? false, createdBy: actor.userId, expiresAt,
    });
    return { ...toApiKeyView(row), key: secret };
  }

  /**
   * A new secret for the key, returned once; the old secret keeps working for `grace_seconds`
   * (the same model as webhook secrets). A revoked or expired key cannot be rotated (409).
   */
  async rotate(actor: Actor, id: string, input: ApiKeyRotateInput): Promise<ApiKeyView & { key: string }> {
    const key = await this.visibleKey(actor, id);
    const status = apiKeyStatus(key);
    if (status === 'revoked') conflict('api_key_revoked', 'The key is revoked; create a new one instead.');
    if (status === 'expired') conflict('api_key_expired', 'The key has expired; create a new one instead.');
    const now = new Date();
    const grace = input.grace_seconds ?? DEFAULT_KEY_GRACE_SECONDS;
    const rotated = await this.keys.rotate(this.db, key.id, new Date(now.getTime() + grace * 1000), now)
      ?? conflict('api_key_revoked', 'The key is revoked; create a new one instead.');
    // Cached lookups of the old secret end here now (with no grace, at once); elsewhere within the cache TTL.
    this.authenticator.forget({ apiKeyId: key.id });
    return { ...toApiKeyView(rotated.row), key: rotated.secret };
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    const key = await this.visibleKey(actor, id);
    await this.keys.revoke(this.db, key.id);
    this.authenticator.forget({ apiKeyId: key.id });
  }

  /** Other users' keys are invisible to non-admins, exactly as if they did not exist. */
  private async visibleKey(actor: Actor, id: string): Promise<ApiKeyRow> {
    const key = isId('apiKey', id) ? await this.keys.get(this.db, actor.workspaceId, id) : undefined;
    if (!key || (actor.role !== 'admin' && key.user_id !== actor.userId)) return notFound('API key', id);
    return key;
  }
}
