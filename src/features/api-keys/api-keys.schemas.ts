import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { NonBlankString, Nullable, StringEnum } from '../../http/schema-types.ts';

export const ApiKey = Type.Object({
  id: Type.String({ description: 'key_…' }),
  name: Type.String(),
  user_id: Type.String(),
  prefix: Type.String({ description: 'The first characters of the secret, to tell keys apart (`jsk_AbCd`).' }),
  read_only: Type.Boolean({ description: 'A read-only key gets 403 on any write.' }),
  status: StringEnum(['active', 'expired', 'revoked'], { description: '`expired`: past `expires_at` (401 `expired_api_key`); `revoked`: revoked, or its user deactivated.' }),
  created_by: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Nullable(Type.String({ format: 'date-time', description: 'When the key stops working (401 `expired_api_key`); null: never. Set at creation.' })),
  last_used_at: Nullable(Type.String({ format: 'date-time', description: 'When the key last authenticated a request, to within about a minute (it is recorded at most once a minute); null: never used.' })),
  rotated_at: Nullable(Type.String({ format: 'date-time', description: 'When the secret was last rotated; null: never.' })),
  previous_secret_expires_at: Nullable(Type.String({ format: 'date-time', description: 'After a rotation: until when the previous secret still works (the grace period); null when it no longer does.' })),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'ApiKey' });
export type ApiKeyView = Static<typeof ApiKey>;

export const ApiKeyWithSecret = Type.Composite([ApiKey, Type.Object({
  key: Type.String({ description: 'The secret (`jsk_…`). Shown only in this response: store it now.' }),
})], { title: 'ApiKeyWithSecret' });

export const ApiKeyCreate = Type.Object({
  name: NonBlankString({ line: true, maxLength: 100, description: 'What the key is for, e.g. `CI deploys`; one line, not only white space.' }),
  user_id: Type.Optional(Type.String({ maxLength: 100, description: 'Whose key it is; admins may name another user. Defaults to the caller.' })),
  read_only: Type.Optional(Type.Boolean({ default: false })),
  expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the key stops working (RFC 3339, in the future); omit for a key that does not expire.' })),
}, { additionalProperties: false });
export type ApiKeyCreateInput = Static<typeof ApiKeyCreate>;

export const ApiKeyListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  user_id: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(StringEnum(['active', 'expired', 'revoked', 'all'], { default: 'all' })),
}, { additionalProperties: false });
export type ApiKeyListFilters = Static<typeof ApiKeyListQuery>;

/** Any text: an id of the wrong shape is simply not found (404), like another user's or workspace's. */
export const ApiKeyIdParams = Type.Object({ id: Type.String({ description: 'key_…' }) });

export const DEFAULT_KEY_GRACE_SECONDS = 86_400;
export const MAX_KEY_GRACE_SECONDS = 7 * 86_400;

export const ApiKeyRotate = Type.Object({
  grace_seconds: Type.Optional(Type.Integer({
    minimum: 0, maximum: MAX_KEY_GRACE_SECONDS, default: DEFAULT_KEY_GRACE_SECONDS,
    description: 'How long the old secret keeps working alongside the new one (0..604800 s, default 86400 = 24 h). 0 stops it at once (a leaked key).',
  })),
}, { additionalProperties: false, title: 'ApiKeyRotate', description: 'Optional; an empty body rotates with a 24 h grace period.' });
export type ApiKeyRotateInput = Static<typeof ApiKeyRotate>;
