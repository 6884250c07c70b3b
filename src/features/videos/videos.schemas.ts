import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';
import { CAPTION_MAX, PhotoCoordinates, PhotoSort } from '../photos/photos.schemas.ts';

const Timestamp = Type.String({ format: 'date-time' });
const IdPattern = (prefix: string) => `^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`;

export const Video = Type.Object({
  id: Type.String({ description: 'vid_…' }),
  project_id: Type.String(),
  url: Type.String({ description: 'Signed, expiring URL of the uploaded file, byte for byte; range requests work (for `<video>` seeking).' }),
  poster_url: Nullable(Type.String({ description: 'Signed, expiring URL of a JPEG frame (longest side at most 1280 px); null until processed, or when no ffmpeg is available.' })),
  duration_s: Nullable(Type.Number({ description: 'Seconds, from ffprobe; null until processed or when unknown.' })),
  width: Nullable(Type.Integer({ description: 'Pixels, as displayed (after the rotation the file asks for); null until processed or when unknown.' })),
  height: Nullable(Type.Integer()),
  codec: Nullable(Type.String({ description: 'The video stream\'s codec as ffprobe names it (`h264`, `hevc`, `vp9`, `av1`, …).' })),
  content_type: StringEnum(['video/mp4', 'video/quicktime', 'video/webm'], { description: 'Sniffed from the bytes.' }),
  byte_size: Type.Integer(),
  sha256: Type.String({ description: 'Lowercase hex SHA-256 of the original.' }),
  captured_at: Type.String({ format: 'date-time', description: 'When the video was recorded: the client\'s value, else the file\'s creation time once processed, else the upload time (see `captured_at_source`).' }),
  captured_at_source: StringEnum(['client', 'metadata', 'upload']),
  coordinates: Nullable(PhotoCoordinates),
  coordinates_source: Nullable(StringEnum(['client', 'metadata'])),
  caption: Nullable(Type.String()),
  processing_status: StringEnum(['pending', 'processed', 'failed'], { description: '`pending` until probed; `failed` with `processing_error` when the file cannot be read as a video.' }),
  processing_error: Nullable(Type.String()),
  creator_id: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'Video' });
export type VideoView = Static<typeof Video>;

/** The multipart form, for the document (the server reads it as a stream, field by field). */
export const VideoUploadForm = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The video: MP4, QuickTime (MOV) or WebM (sniffed from the bytes). Up to JOBSITE_VIDEO_MAX_BYTES (default 1 GB).' },
    caption: { type: 'string', maxLength: CAPTION_MAX },
    captured_at: { type: 'string', format: 'date-time', description: 'RFC 3339; overrides the file\'s creation time.' },
    lat: { type: 'number', minimum: -90, maximum: 90, description: 'With `lon`; overrides the file\'s location.' },
    lon: { type: 'number', minimum: -180, maximum: 180 },
    altitude: { type: 'number', description: 'Metres; only with `lat` and `lon`.' },
  },
} as const;

export const VideoPatch = Type.Object({
  caption: Type.Optional(Nullable(Type.String({ maxLength: CAPTION_MAX, description: `Up to ${CAPTION_MAX} characters.` }))),
  captured_at: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; from then on the file\'s creation time no longer sets it.' })),
  coordinates: Type.Optional(Nullable(PhotoCoordinates)),
}, {
  additionalProperties: false, title: 'VideoPatch',
  description: 'JSON merge patch: a missing field is unchanged; `coordinates` is replaced whole, `null` clears it. A value set here is never replaced by the file\'s metadata.',
});
export type VideoPatchInput = Static<typeof VideoPatch>;

export const VideoListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  project_id: Type.Optional(Type.String({ pattern: IdPattern('prj'), description: 'prj_…' })),
  captured_after: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; videos recorded at or after it.' })),
  captured_before: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; videos recorded before it.' })),
  creator_id: Type.Optional(Type.String({ pattern: IdPattern('usr'), description: 'usr_…' })),
  bbox: Type.Optional(Type.String({
    maxLength: 200,
    description: '`minLon,minLat,maxLon,maxLat` (WGS 84 degrees): videos whose coordinates lie inside, edges included. minLon > maxLon crosses the antimeridian.',
  })),
  processing_status: Type.Optional(StringEnum(['pending', 'processed', 'failed'])),
  sort: Type.Optional(PhotoSort),
}, { additionalProperties: false });
export type VideoListFilters = Static<typeof VideoListQuery>;

export const ProjectVideoListQuery = Type.Omit(VideoListQuery, ['project_id'], { additionalProperties: false });

export const VideoIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'vid_…' }) });
