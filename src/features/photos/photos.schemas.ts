import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';

const Timestamp = Type.String({ format: 'date-time' });
const IdPattern = (prefix: string) => `^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`;

export const CAPTION_MAX = 2000;
export const MAX_TAG_IDS = 50;

export const PhotoCoordinates = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90, description: 'Latitude in degrees (WGS 84).' }),
  lon: Type.Number({ minimum: -180, maximum: 180, description: 'Longitude in degrees (WGS 84).' }),
  altitude: Type.Optional(Nullable(Type.Number({ minimum: -20_000, maximum: 100_000, description: 'Metres above sea level (negative below), when known.' }))),
}, { additionalProperties: false, title: 'PhotoCoordinates' });

const VariantUrls = Type.Object({
  original: Type.String({ description: 'Signed, expiring URL of the uploaded file, byte for byte.' }),
  large: Nullable(Type.String({ description: 'JPEG, longest side at most 2048 px, auto-rotated; null until processed.' })),
  thumbnail: Nullable(Type.String({ description: 'JPEG, longest side at most 320 px, auto-rotated; null until processed.' })),
  annotated: Type.Optional(Type.String({ description: 'JPEG of the large variant with the annotations drawn in; present once rendered, absent without annotations.' })),
}, { title: 'PhotoVariants', description: 'Signed, expiring URLs (JOBSITE_URL_TTL_SECONDS, default 1 hour): they work without the bearer key, e.g. in an `<img>` tag.' });

const TagSummary = Type.Object({ id: Type.String(), name: Type.String(), color: Type.String() }, { title: 'PhotoTag' });

/** Annotations as stored; the request schema (AnnotationShapes) validates them strictly on the way in. */
const StoredShape = Type.Unsafe<Record<string, unknown>>({
  type: 'object', additionalProperties: true,
  description: 'One shape as sent to PUT /v1/photos/{id}/annotations (see AnnotationShapes).',
});

export const Photo = Type.Object({
  id: Type.String({ description: 'pho_…' }),
  project_id: Nullable(Type.String({
    description: 'prj_… of the project the photo is filed under; null while it waits unfiled (uploaded with `POST /v1/photos` and not filed ' +
      'by its position: docs/photos.md, "Photos that file themselves"). `PATCH` it to file or move the photo.',
  })),
  url: Type.String({ description: 'Signed, expiring URL of the original (the same as `variants.original`).' }),
  variants: VariantUrls,
  width: Nullable(Type.Integer({ description: 'Pixels, as displayed (after EXIF orientation); null until processed.' })),
  height: Nullable(Type.Integer()),
  content_type: StringEnum(['image/jpeg', 'image/png', 'image/webp', 'image/heic'], { description: 'Sniffed from the bytes.' }),
  byte_size: Type.Integer(),
  sha256: Type.String({ description: 'Lowercase hex SHA-256 of the original.' }),
  captured_at: Type.String({ format: 'date-time', description: 'When the photo was taken: the client\'s value, else EXIF once processed, else the upload time (see `captured_at_source`).' }),
  captured_at_source: StringEnum(['client', 'exif_offset', 'exif_local', 'exif', 'upload'], {
    description: '`client`: given by the client. `exif_offset`: EXIF time with its UTC offset (exact). `exif_local`: EXIF wall-clock time without an offset, '
      + 'read in `captured_at_time_zone`. `upload`: no capture time known; `captured_at` is when it was uploaded. `exif`: read before the time-zone rules '
      + '(an offset applied when the file had one, else the wall clock taken as UTC).',
  }),
  captured_at_time_zone: Nullable(Type.String({
    description: 'IANA time zone of where the photo was taken, as far as known: the zone of its GPS position, else of its project\'s coordinates, '
      + 'else the workspace\'s `time_zone`. An `exif_local` time was read in it; reports print the photo\'s time in it. Null until processed.',
  })),
  coordinates: Nullable(PhotoCoordinates),
  coordinates_source: Nullable(StringEnum(['client', 'exif'])),
  caption: Nullable(Type.String()),
  tags: Type.Array(TagSummary, { description: 'The photo\'s tags, sorted by name (case-insensitively). Change them with PUT/DELETE /v1/photos/{id}/tags/{tag_id}, or set them on upload with `tag_ids`.' }),
  annotations: Type.Array(StoredShape),
  processing_status: StringEnum(['pending', 'processed', 'failed'], { description: '`pending` until the variants exist; `failed` with `processing_error` when the file cannot be processed.' }),
  processing_error: Nullable(Type.String()),
  source_url: Nullable(Type.String({ description: 'Where an imported photo was fetched from.' })),
  creator_id: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'Photo' });
export type PhotoView = Static<typeof Photo>;

const Caption = Type.String({ maxLength: CAPTION_MAX, description: `Up to ${CAPTION_MAX} characters.` });
const TagIds = Type.Array(Type.String({ pattern: IdPattern('tag') }), { maxItems: MAX_TAG_IDS, uniqueItems: true });

/** The fields an upload may carry besides the file (multipart fields, or the JSON import body). */
export const PhotoImport = Type.Object({
  source_url: Type.String({ minLength: 1, maxLength: 2048, description: 'A public http(s) URL the server fetches the photo from (same address rules as webhooks; redirects followed up to 3).' }),
  caption: Type.Optional(Nullable(Caption)),
  captured_at: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; overrides EXIF.' })),
  coordinates: Type.Optional(Nullable(PhotoCoordinates)),
  tag_ids: Type.Optional(TagIds),
}, { additionalProperties: false, title: 'PhotoImport' });
export type PhotoImportInput = Static<typeof PhotoImport>;

/** The multipart form, for the document (the server reads it as a stream, field by field). */
export const PhotoUploadForm = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The photo: JPEG, PNG, HEIC/HEIF or WebP (sniffed from the bytes). Up to JOBSITE_PHOTO_MAX_BYTES (default 50 MB) and JOBSITE_PHOTO_MAX_PIXELS (default 100 MP).' },
    caption: { type: 'string', maxLength: CAPTION_MAX },
    captured_at: { type: 'string', format: 'date-time', description: 'RFC 3339; overrides EXIF.' },
    lat: { type: 'number', minimum: -90, maximum: 90, description: 'With `lon`; overrides EXIF GPS.' },
    lon: { type: 'number', minimum: -180, maximum: 180 },
    altitude: { type: 'number', description: 'Metres; only with `lat` and `lon`.' },
    tag_ids: { type: 'string', description: 'tag_… ids of the workspace, comma-separated, or the field repeated; an unknown one refuses the upload (422 `tag_not_found`).' },
  },
} as const;

export const PhotoPatch = Type.Object({
  caption: Type.Optional(Nullable(Caption)),
  captured_at: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; from then on EXIF no longer sets it.' })),
  coordinates: Type.Optional(Nullable(PhotoCoordinates)),
  project_id: Type.Optional(Type.String({
    pattern: IdPattern('prj'),
    description: 'prj_…: files an unfiled photo under this project, or moves a filed one (`photo.assigned`, `assigned_by: "user"`). ' +
      'You must be allowed to change the photo and to see the project. A photo cannot be unfiled again.',
  })),
}, {
  additionalProperties: false, title: 'PhotoPatch',
  description: 'JSON merge patch: a missing field is unchanged; `coordinates` is replaced whole, `null` clears it.',
});
export type PhotoPatchInput = Static<typeof PhotoPatch>;

export const PhotoSort = StringEnum(['captured_at', 'created_at'], {
  default: 'created_at',
  description: '`created_at` (newest upload first, the default) or `captured_at` (most recently taken first). A cursor works only with the sort it came from.',
});

export const PhotoListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  project_id: Type.Optional(Type.String({
    pattern: `^(${IdPattern('prj').slice(1, -1)}|none)$`,
    description: 'prj_…: that project\'s photos; `none`: the unfiled photos, waiting to be moved to a project (docs/photos.md, "Photos that file themselves").',
  })),
  captured_after: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; photos taken at or after it.' })),
  captured_before: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; photos taken before it.' })),
  tag_id: Type.Optional(Type.String({ pattern: IdPattern('tag'), description: 'tag_…: only photos carrying this tag.' })),
  creator_id: Type.Optional(Type.String({ pattern: IdPattern('usr'), description: 'usr_…' })),
  bbox: Type.Optional(Type.String({
    maxLength: 200,
    description: '`minLon,minLat,maxLon,maxLat` (WGS 84 degrees): photos whose coordinates lie inside, edges included. minLon > maxLon crosses the antimeridian.',
  })),
  processing_status: Type.Optional(StringEnum(['pending', 'processed', 'failed'])),
  sort: Type.Optional(PhotoSort),
}, { additionalProperties: false });
export type PhotoListFilters = Static<typeof PhotoListQuery>;

export const ProjectPhotoListQuery = Type.Omit(PhotoListQuery, ['project_id'], { additionalProperties: false });

export const PhotoIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'pho_…' }) });

export const PHOTO_ASSIGNERS = ['geofence', 'nearest', 'user'] as const;
export type PhotoAssigner = typeof PHOTO_ASSIGNERS[number];

/** `data` of the photo.assigned event. */
export const PhotoAssignment = Type.Object({
  photo: Photo,
  project_id: Type.String({ description: 'prj_… the photo is filed under now.' }),
  previous_project_id: Nullable(Type.String({ description: 'prj_… it was under before; null when it was unfiled.' })),
  assigned_by: StringEnum(PHOTO_ASSIGNERS, {
    description: '`geofence`: its position lies in the project\'s geofence; `nearest`: the nearest project within JOBSITE_AUTO_ASSIGN_METERS; `user`: moved by `PATCH /v1/photos/{id}`.',
  }),
  user_id: Nullable(Type.String({ description: 'usr_… who moved it (`assigned_by: "user"`); null when it was filed automatically.' })),
}, { title: 'PhotoAssignment' });
export type PhotoAssignmentView = Static<typeof PhotoAssignment>;
