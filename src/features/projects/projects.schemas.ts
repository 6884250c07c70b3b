import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { NonBlankString, Nullable, StringEnum } from '../../http/schema-types.ts';

// PostgreSQL text cannot hold NUL characters, so free text refuses them up front (400, not 500).
const NO_NUL = '^[^\\u0000]*$';
const Text = (maxLength: number, description?: string) => Type.String({ maxLength, pattern: NO_NUL, ...(description ? { description } : {}) });
const Timestamp = Type.String({ format: 'date-time' });

const ProjectName = NonBlankString({
  maxLength: 200,
  description: '1..200 characters, not only whitespace; stored trimmed.',
});
const Description = Text(10_000, 'Free text, up to 10,000 characters.');

export const ADDRESS_FIELDS = ['street_address_1', 'street_address_2', 'city', 'state', 'postal_code', 'country'] as const;
export type AddressField = typeof ADDRESS_FIELDS[number];

const AddressLine = Nullable(Text(200));

export const Address = Type.Object({
  street_address_1: AddressLine,
  street_address_2: AddressLine,
  city: AddressLine,
  state: AddressLine,
  postal_code: AddressLine,
  country: AddressLine,
}, { title: 'Address', description: 'Always present; each part is a string or null.' });

/** In a request, every part is optional: on create a missing part is null; on PATCH it is unchanged. */
const AddressInput = Type.Object({
  street_address_1: Type.Optional(AddressLine),
  street_address_2: Type.Optional(AddressLine),
  city: Type.Optional(AddressLine),
  state: Type.Optional(AddressLine),
  postal_code: Type.Optional(AddressLine),
  country: Type.Optional(AddressLine),
}, { additionalProperties: false, title: 'AddressInput', description: 'Parts of an address (each a string of up to 200 characters, or null).' });
export type AddressInputValue = Static<typeof AddressInput>;

export const Coordinates = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90, description: 'Latitude in degrees (WGS 84), -90..90.' }),
  lon: Type.Number({ minimum: -180, maximum: 180, description: 'Longitude in degrees (WGS 84), -180..180.' }),
}, { additionalProperties: false, title: 'Coordinates' });

const GEOFENCE_DESCRIPTION = 'Where photos uploaded without a project (`POST /v1/photos`) are filed under this project: a GeoJSON Polygon ' +
  '(one ring of `[longitude, latitude]` positions, closed, at most 1,000 positions, not crossing itself; holes are not supported), ' +
  'or `{"radius_m": n}` (1..50,000 m) around the project\'s `coordinates`. When several fences hold a photo, the smallest wins. ' +
  'Null: no fence (the project is then a candidate for the nearest-project rule). docs/photos.md, "Photos that file themselves".';

/** [longitude, latitude]; a third number (an altitude) is allowed by GeoJSON and ignored. */
const Position = Type.Array(Type.Number(), { minItems: 2, maxItems: 3, description: '[longitude, latitude] in WGS 84 degrees.' });

export const GeofencePolygon = Type.Object({
  type: Type.Literal('Polygon'),
  coordinates: Type.Array(Type.Array(Position, { maxItems: 10_000 }), {
    minItems: 1, maxItems: 1, description: 'One linear ring (the outline): its last position repeats the first. Inner rings (holes) are not supported.',
  }),
}, { additionalProperties: false, title: 'GeofencePolygon', description: 'A GeoJSON Polygon (RFC 7946 §3.1.6).' });

export const GeofenceRadius = Type.Object({
  radius_m: Type.Number({ minimum: 1, maximum: 50_000, description: 'Metres around the project\'s `coordinates` (which it needs).' }),
}, { additionalProperties: false, title: 'GeofenceRadius' });

/** In a request: a polygon, a radius, or null (clears it). */
const GeofenceInput = Type.Union([GeofencePolygon, GeofenceRadius, Type.Null()], { description: GEOFENCE_DESCRIPTION });

/** In a response: one object schema (serialized without trying each branch), null without a fence. */
export const Geofence = Type.Unsafe<{ type: 'Polygon'; coordinates: number[][][] } | { radius_m: number } | null>({
  type: ['object', 'null'],
  title: 'Geofence',
  description: `${GEOFENCE_DESCRIPTION} Either \`type\` and \`coordinates\` (a polygon) or \`radius_m\`.`,
  properties: {
    type: { type: 'string', enum: ['Polygon'] },
    coordinates: { type: 'array', items: { type: 'array', items: { type: 'array', items: { type: 'number' } } } },
    radius_m: { type: 'number' },
  },
  additionalProperties: false,
});

export const ProjectTag = Type.Object({
  id: Type.String({ description: 'tag_…' }),
  name: Type.String(),
  color: Type.String(),
}, { title: 'ProjectTag' });

export const CoverPhoto = Type.Object({
  id: Type.String({ description: 'pho_…' }),
  thumbnail_url: Type.String({ description: 'A signed, expiring URL of the thumbnail.' }),
}, { title: 'CoverPhoto' });

export const ProjectStatusSchema = StringEnum(['active', 'archived']);

export const Project = Type.Object({
  id: Type.String({ description: 'prj_…' }),
  name: Type.String(),
  description: Nullable(Type.String()),
  status: ProjectStatusSchema,
  address: Address,
  coordinates: Nullable(Coordinates),
  geofence: Geofence,
  tags: Type.Array(ProjectTag, { description: 'The project\'s tags, sorted by name (case-insensitively). Change them with PUT/DELETE /v1/projects/{id}/tags/{tag_id}.' }),
  cover_photo_id: Nullable(Type.String()),
  cover_photo: Nullable(CoverPhoto),
  member_ids: Type.Array(Type.String(), { description: 'The crew: ids of the users assigned to the project, in id order. Change it with PUT/DELETE /v1/projects/{id}/members/{user_id}.' }),
  created_by: Type.String({ description: 'The user who created the project.' }),
  created_at: Timestamp,
  updated_at: Type.String({ format: 'date-time', description: 'Moves on every change, including crew changes.' }),
  archived_at: Nullable(Timestamp),
}, { title: 'Project' });
export type ProjectView = Static<typeof Project>;

export const ProjectCreate = Type.Object({
  name: ProjectName,
  description: Type.Optional(Nullable(Description)),
  address: Type.Optional(Nullable(AddressInput)),
  coordinates: Type.Optional(Nullable(Coordinates)),
  geofence: Type.Optional(GeofenceInput),
}, { additionalProperties: false, title: 'ProjectCreate', description: 'A new project; it starts active, with no crew. The caller is recorded as `created_by`.' });
export type ProjectCreateInput = Static<typeof ProjectCreate>;

export const ProjectPatch = Type.Object({
  name: Type.Optional(ProjectName),
  cover_photo_id: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'pho_… of a processed photo of this project; null removes the cover.' }))),
  description: Type.Optional(Nullable(Description)),
  address: Type.Optional(Nullable(AddressInput)),
  coordinates: Type.Optional(Nullable(Coordinates)),
  geofence: Type.Optional(GeofenceInput),
}, {
  additionalProperties: false,
  title: 'ProjectPatch',
  description: 'JSON merge patch (RFC 7396): a missing field is unchanged; `address: {city: "X"}` changes only the city, ' +
    '`address: null` clears every part; `coordinates` and `geofence` are replaced whole, `null` clears them ' +
    '(clearing the coordinates under a radius geofence is a 422 `geofence_without_coordinates`). ' +
    'Status changes go through /archive and /restore; the crew through /members.',
});
export type ProjectPatchInput = Static<typeof ProjectPatch>;

const UserIdFilter = Type.String({ pattern: '^usr_[0-9a-hjkmnp-tv-z]{26}$', description: 'usr_…' });
const TagIdFilter = Type.String({ pattern: '^tag_[0-9a-hjkmnp-tv-z]{26}$', description: 'tag_…: only projects carrying this tag.' });

export const ProjectSort = StringEnum(['created_at', 'updated_at'], {
  default: 'created_at',
  description: '`created_at` (newest first, the default) or `updated_at` (most recently changed first). A cursor works only with the sort it came from.',
});

export const ProjectListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  status: Type.Optional(StringEnum(['active', 'archived', 'all'], { default: 'active', description: 'Default `active`.' })),
  q: Type.Optional(Text(200, 'Case-insensitive substring of the name or any address part.')),
  member_id: Type.Optional(UserIdFilter),
  tag_id: Type.Optional(TagIdFilter),
  updated_since: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; projects with `updated_at` at or after it.' })),
  sort: Type.Optional(ProjectSort),
}, { additionalProperties: false });
export type ProjectListFilters = Static<typeof ProjectListQuery>;

export const ProjectIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'prj_…' }) });
export const ProjectMemberParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'prj_…' }),
  user_id: Type.String({ maxLength: 100, description: 'usr_…' }),
});

export const ProjectMemberListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
}, { additionalProperties: false });
export type ProjectMemberListQueryValue = Static<typeof ProjectMemberListQuery>;
