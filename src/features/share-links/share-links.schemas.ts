import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';

/** Photos one link may share: a page a client scrolls, not an archive (exports are for that). */
export const MAX_SHARED_PHOTOS = 200;
/** Without `expires_at`, a link works this long (explicit `null`: until revoked). */
export const DEFAULT_LIFETIME_DAYS = 30;

const Timestamp = Type.String({ format: 'date-time' });

export const ShareLinkCreate = Type.Object({
  photo_ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), {
    minItems: 1, maxItems: MAX_SHARED_PHOTOS, uniqueItems: true,
    description: `pho_… ids of the project's photos (1 to ${MAX_SHARED_PHOTOS}), shown in this order. Give this or \`report_id\`, not both.`,
  })),
  report_id: Type.Optional(Type.String({ maxLength: 100, description: 'rep_… of a finished report of the project. Give this or `photo_ids`, not both.' })),
  expires_at: Type.Optional(Nullable(Type.String({
    format: 'date-time',
    description: `RFC 3339, in the future: the page answers 410 from then on. Omitted: ${DEFAULT_LIFETIME_DAYS} days from now; \`null\`: until revoked.`,
  }))),
  allow_download: Type.Optional(Type.Boolean({ default: false, description: 'Offer downloads of the original photos (or of the report\'s PDF) on the page.' })),
}, { additionalProperties: false, title: 'ShareLinkCreate', description: 'What to share: exactly one of `photo_ids` and `report_id`.' });
export type ShareLinkCreateInput = Static<typeof ShareLinkCreate>;

export const ShareLinkStatus = StringEnum(['active', 'expired', 'revoked'], {
  description: '`active` (the page shows), `expired` (past `expires_at`) or `revoked` (turned off); the page answers 410 for both of the latter.',
});

export const ShareLink = Type.Object({
  id: Type.String({ description: 'shl_…' }),
  project_id: Type.String(),
  url: Nullable(Type.String({
    description: 'The public page, `<public URL>/s/<token>`: anyone with it sees what is shared, without signing in. The same on every read (null only if the ' +
      'server\'s URL-signing secret was changed since the link was made: the link then still works for those who have it, but cannot be shown again).',
  })),
  status: ShareLinkStatus,
  photo_ids: Type.Array(Type.String(), { description: 'The shared photos, in page order; photos deleted since drop out. Empty when a report is shared.' }),
  report_id: Nullable(Type.String({ description: 'The shared report (rep_…); null when photos are shared, or when the report was deleted since.' })),
  allow_download: Type.Boolean(),
  expires_at: Nullable(Type.String({ format: 'date-time', description: 'When the page stops working; null: until revoked.' })),
  view_count: Type.Integer({ minimum: 0, description: 'Times the page was opened (each GET of it while active).' }),
  last_viewed_at: Nullable(Type.String({ format: 'date-time' })),
  created_by: Type.String({ description: 'usr_…' }),
  created_at: Timestamp,
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
  revoked_by: Nullable(Type.String({ description: 'usr_… who turned it off.' })),
}, { title: 'ShareLink' });
export type ShareLinkView = Static<typeof ShareLink>;

export const ShareLinkIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'shl_…' }) });

export const ShareLinkListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  project_id: Type.Optional(Type.String({ maxLength: 100, description: 'Only this project\'s links.' })),
  status: Type.Optional(ShareLinkStatus),
}, { additionalProperties: false });
export type ShareLinkListFilters = Static<typeof ShareLinkListQuery>;
