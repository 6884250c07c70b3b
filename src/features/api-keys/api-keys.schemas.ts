import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';

export const ApiKey = Type.Object({
  id: Type.String({ description: 'key_…' }),
  name: Type.String(),
  user_id: Type.String(),
  prefix: Type.String({ description: 'The first characters of the secret, to tell keys apart (`jsk_AbCd`).' }),
  read_only: Type.Boolean({ description: 'A read-only key gets 403 on any write.' }),
  created_by: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'ApiKey' });
export type ApiKeyView = Static<typeof ApiKey>;

export const ApiKeyWithSecret = Type.Composite([ApiKey, Type.Object({
  key: Type.String({ description: 'The secret (`jsk_…`). Shown only in this response: store it now.' }),
})], { title: 'ApiKeyWithSecret' });

export const ApiKeyCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001F\\u007F]*$', description: 'What the key is for, e.g. `CI deploys`.' }),
  user_id: Type.Optional(Type.String({ maxLength: 100, description: 'Whose key it is; admins may name another user. Defaults to the caller.' })),
  read_only: Type.Optional(Type.Boolean({ default: false })),
}, { additionalProperties: false });
export type ApiKeyCreateInput = Static<typeof ApiKeyCreate>;

export const ApiKeyListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  user_id: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(StringEnum(['active', 'revoked', 'all'], { default: 'all' })),
}, { additionalProperties: false });
export type ApiKeyListFilters = Static<typeof ApiKeyListQuery>;

/** Any text: an id of the wrong shape is simply not found (404), like another user's or workspace's. */
export const ApiKeyIdParams = Type.Object({ id: Type.String({ description: 'key_…' }) });
