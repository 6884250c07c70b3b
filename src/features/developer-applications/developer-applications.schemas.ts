import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../http/schema-types.ts';

/** One line of text: no control characters. */
const LINE = '^[^\\u0000-\\u001F\\u007F]*$';
/** Free text over several lines: tabs and line breaks, no other control characters. */
const TEXT = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F]*$';

export const INTENDED_USE_MIN = 20;
export const INTENDED_USE_MAX = 5000;

export const DeveloperApplicationCreate = Type.Object({
  company_name: Type.String({ minLength: 1, maxLength: 200, pattern: LINE, description: 'The company (or project) that will use the API.' }),
  contact_name: Type.String({ minLength: 1, maxLength: 200, pattern: LINE, description: 'Who we write to; becomes the admin user of the workspace on approval.' }),
  email: Type.String({ format: 'email', maxLength: 254, description: 'Where the API key is sent. One pending application per address (409 `application_pending`).' }),
  intended_use: Type.String({
    minLength: INTENDED_USE_MIN, maxLength: INTENDED_USE_MAX, pattern: TEXT,
    description: `What you will build with the API (${INTENDED_USE_MIN}..${INTENDED_USE_MAX} characters, not counting surrounding spaces). The operator reads it before approving.`,
  }),
  website: Type.Optional(Type.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$', description: 'Your site: an http(s) URL.' })),
  expected_monthly_requests: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'About how many API requests a month you expect.' })),
}, { additionalProperties: false, title: 'DeveloperApplicationCreate' });
export type DeveloperApplicationCreateInput = Static<typeof DeveloperApplicationCreate>;

export const DeveloperApplicationStatusEnum = StringEnum(['pending', 'approved', 'rejected'], {
  description: '`pending` until the operator decides; `approved`: the API key was sent to the e-mail address; `rejected`: the reason was sent there.',
});

export const DeveloperApplicationReceipt = Type.Object({
  id: Type.String({ description: 'app_…' }),
  status: DeveloperApplicationStatusEnum,
  status_token: Type.String({ description: 'Shown only here: send it as `X-Application-Token` to `GET /v1/developer-applications/{id}` to see the status.' }),
  created_at: Type.String({ format: 'date-time' }),
}, { title: 'DeveloperApplicationReceipt' });

/** What the applicant sees: the status, and nothing else. */
export const DeveloperApplicationStatus = Type.Object({
  id: Type.String({ description: 'app_…' }),
  status: DeveloperApplicationStatusEnum,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time', description: 'When the status last changed.' }),
}, { title: 'DeveloperApplicationStatus' });
export type DeveloperApplicationStatusView = Static<typeof DeveloperApplicationStatus>;

export const DeveloperApplicationIdParams = Type.Object({ id: Type.String({ description: 'app_…' }) });

export const StatusTokenHeaders = Type.Object({
  'x-application-token': Type.String({ minLength: 1, maxLength: 200, description: 'The `status_token` from the application\'s receipt. A wrong token answers 404, as for an unknown id.' }),
});
