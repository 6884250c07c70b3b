import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import type { ApiKeyAuthenticator } from '../../http/auth.ts';
import { forbidden, notFound, unprocessable } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { UsersRepository } from '../users/users.repository.ts';
import { ApiKeysRepository } from './api-keys.repository.ts';
import type { ApiKeyCreateInput, ApiKeyListFilters } from './api-keys.schemas.ts';
import { toApiKeyView, type ApiKeyView } from './api-keys.views.ts';

/**
 * API keys. Everyone manages their own keys; admins see, create and revoke anyone's.
 * A key acts with its user's current role; a read-only key cannot write at all.
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
    const rows = await this.keys.list(this.db, actor.workspaceId, scoped, after as string | null);
    return toPage(rows, filters.limit, 'id', (k) => [k.id], toApiKeyView);
  }

  async get(actor: Actor, id: string): Promise<ApiKeyView> {
    const key = await this.keys.get(this.db, actor.workspaceId, id);
    // Other users' keys are invisible to non-admins, exactly as if they did not exist.
    if (!key || (actor.role !== 'admin' && key.user_id !== actor.userId)) return notFound('API key', id);
    return toApiKeyView(key);
  }

  async create(actor: Actor, input: ApiKeyCreateInput): Promise<ApiKeyView & { key: string }> {
    const userId = input.user_id ?? actor.userId;
    if (userId !== actor.userId && actor.role !== 'admin') forbidden('Only admins may create keys for other users.');
    const user = await this.users.get(this.db, actor.workspaceId, userId) ?? notFound('user', userId);
    if (user.status !== 'active') unprocessable('user_inactive', 'The user is deactivated; reactivate them first.');
    const { row, secret } = await this.keys.issue(this.db, {
      workspaceId: actor.workspaceId, userId, name: input.name, readOnly: input.read_only ?? false, createdBy: actor.userId,
    });
    return { ...toApiKeyView(row), key: secret };
  }

  async revoke(actor: Actor, id: string): Promise<void> {
    const key = await this.keys.get(this.db, actor.workspaceId, id);
    if (!key || (actor.role !== 'admin' && key.user_id !== actor.userId)) return notFound('API key', id);
    await this.keys.revoke(this.db, key.id);
    this.authenticator.forget({ apiKeyId: key.id });
  }
}
