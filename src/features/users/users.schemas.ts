import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { NonBlankString, Nullable, StringEnum } from '../../http/schema-types.ts';

export const RoleSchema = StringEnum(['admin', 'manager', 'standard', 'restricted'], {
  description: 'admin: everything; manager: all projects and users below admin; standard: all projects\' content; restricted: only projects they belong to or created.',
});
const Handle = Type.String({
  pattern: '^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,37}[A-Za-z0-9_])?$',
  description: 'Unique per workspace (case-insensitively); used for @mentions. 1..39 letters, digits, `_` or `-`.',
});
const Email = Type.String({ format: 'email', maxLength: 254 });
// No control characters: PostgreSQL text cannot hold NUL, and names are shown in lists.
const Name = NonBlankString({ line: true, maxLength: 100 });

export const User = Type.Object({
  id: Type.String({ description: 'usr_…' }),
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  handle: Type.String(),
  role: RoleSchema,
  status: StringEnum(['active', 'deactivated']),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  deactivated_at: Nullable(Type.String({ format: 'date-time' })),
}, { title: 'User' });
export type UserView = Static<typeof User>;

export const UserCreated = Type.Composite([User, Type.Object({
  invite_url: Type.String({ description: 'The invitation link (`{JOBSITE_PUBLIC_URL}/invite/{token}`): the person opens it to choose a password. Single use, for 72 hours; shown only in this response. Give it to them when `invite_emailed` is false.' }),
  invite_expires_at: Type.String({ format: 'date-time' }),
  invite_emailed: Type.Boolean({ description: 'true when the link was also e-mailed to the user (the server has SMTP configured and the mail server took it).' }),
})], { title: 'UserCreated' });

export const UserCreate = Type.Object({
  email: Email,
  first_name: Type.Optional(Nullable(Name)),
  last_name: Type.Optional(Nullable(Name)),
  handle: Type.Optional(Handle),
  role: Type.Optional(RoleSchema),
}, { additionalProperties: false, description: 'A new user. `role` defaults to standard; `handle` defaults to one made from the e-mail address.' });
export type UserCreateInput = Static<typeof UserCreate>;

export const UserPatch = Type.Object({
  email: Type.Optional(Email),
  first_name: Type.Optional(Nullable(Name)),
  last_name: Type.Optional(Nullable(Name)),
  handle: Type.Optional(Handle),
  role: Type.Optional(RoleSchema),
  status: Type.Optional(StringEnum(['active', 'deactivated'])),
}, { additionalProperties: false });
export type UserPatchInput = Static<typeof UserPatch>;

export const UserListQuery = Type.Object({
  ...PageQuery,
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  status: Type.Optional(StringEnum(['active', 'deactivated', 'all'], { default: 'active' })),
  role: Type.Optional(RoleSchema),
}, { additionalProperties: false });
export type UserListFilters = Static<typeof UserListQuery>;

/** Any text: an id of the wrong shape is simply not found (404), like another workspace's. */
export const UserIdParams = Type.Object({ id: Type.String({ description: 'usr_…' }) });
