import type { Selectable } from 'kysely';
import type { VideosTable } from '../../db/schema.ts';
import type { SignUrl } from '../photos/photos.views.ts';
import type { VideoView } from './videos.schemas.ts';

export type VideoRow = Selectable<VideosTable>;
export type { VideoView };

/** A video as the API returns it (and as events carry it), with freshly signed URLs. */
export async function toVideoView(v: VideoRow, sign: SignUrl): Promise<VideoView> {
  const poster = v.variants.poster;
  const [url, posterUrl] = await Promise.all([sign(v.blob_key), poster ? sign(poster.key) : Promise.resolve(null)]);
  return {
    id: v.id,
    project_id: v.project_id,
    url,
    poster_url: posterUrl,
    duration_s: v.duration_s,
    width: v.width,
    height: v.height,
    codec: v.codec,
    content_type: v.content_type as VideoView['content_type'],
    byte_size: v.byte_size,
    sha256: v.sha256,
    captured_at: v.captured_at.toISOString(),
    captured_at_source: v.captured_at_source,
    coordinates: v.lat === null || v.lon === null ? null : { lat: v.lat, lon: v.lon, altitude: v.altitude },
    coordinates_source: v.coordinates_source,
    caption: v.caption,
    processing_status: v.processing_status,
    processing_error: v.processing_error,
    creator_id: v.creator_id,
    created_at: v.created_at.toISOString(),
    updated_at: v.updated_at.toISOString(),
  };
}

export const toVideoViews = (rows: VideoRow[], sign: SignUrl): Promise<VideoView[]> => Promise.all(rows.map((r) => toVideoView(r, sign)));
