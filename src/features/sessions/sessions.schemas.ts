import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable } from '../../http/schema-types.ts';
import { User } from '../users/users.schemas.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';

const Time = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

export const Password = Type.String({
  minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH,
  description: `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters; any characters, spaces included.`,
});

export const Session = Type.Object({
  id: Type.String({ description: 'ses_…' }),
  current: Type.Boolean({ description: 'true for the session this request was made with.' }),
  user_agent: Nullable(Type.String({ description: 'The browser that signed in (its User-Agent, cut to 300 characters).' })),
  created_at: Time('When the person signed in.'),
  last_used_at: Time('The last request made with the session, to within about a minute.'),
  expires_at: Time('When the session ends unless it is used before: 30 days after its last use.'),
}, { title: 'Session' });
export type SessionView = Static<typeof Session>;

export const SignedInSession = Type.Composite([Session, Type.Object({
  user: User,
  csrf_token: Type.String({ description: 'Send it as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE made with the session cookie.' }),
})], { title: 'SignedInSession' });
export type SignedInSessionView = Static<typeof SignedInSession>;

export const SignIn = Type.Object({
  email: Type.String({ maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  workspace_id: Type.Optional(Type.String({ maxLength: 100, description: 'Only for an address that belongs to people in several workspaces: which one to sign in to (without it, the first whose password matches).' })),
}, { additionalProperties: false, title: 'SignIn' });
export type SignInInput = Static<typeof SignIn>;

export const SessionListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
}, { additionalProperties: false });

export const SessionIdParams = Type.Object({ id: Type.String({ description: 'ses_…' }) });
export const TokenParams = Type.Object({ token: Type.String({ maxLength: 100, description: 'The token from the link in the e-mail (`/invite/{token}`, `/reset/{token}`).' }) });

export const PasswordResetRequest = Type.Object({
  email: Type.String({ maxLength: 254 }),
}, { additionalProperties: false, title: 'PasswordResetRequest' });

export const PasswordResetRequested = Type.Object({
  status: Type.Literal('accepted'),
  detail: Type.String(),
}, { title: 'PasswordResetRequested' });

export const PasswordReset = Type.Object({ password: Password }, { additionalProperties: false, title: 'PasswordReset' });

export const Invitation = Type.Object({
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  workspace: Type.Object({ id: Type.String(), name: Type.String() }),
  expires_at: Time('When the invitation stops working (72 hours after it was made).'),
}, { title: 'Invitation' });
export type InvitationView = Static<typeof Invitation>;

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001F\\u007F]*[^\\u0000-\\u001F\\u007F\\s][^\\u0000-\\u001F\\u007F]*$' });
export const InvitationAccept = Type.Object({
  password: Password,
  first_name: Type.Optional(Name),
  last_name: Type.Optional(Name),
}, { additionalProperties: false, title: 'InvitationAccept' });
export type InvitationAcceptInput = Static<typeof InvitationAccept>;
