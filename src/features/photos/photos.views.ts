import type { Selectable } from 'kysely';
import type { PhotosTable } from '../../db/schema.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { TagSummary } from '../tags/tags.views.ts';
import type { PhotoView } from './photos.schemas.ts';

/** A photo row as the repository reads it: the table's columns plus its tags (sorted by name), aggregated in the same query. */
export type PhotoRow = Selectable<PhotosTable> & { tags: TagSummary[] };
export type { PhotoView };

/** Signs blob keys into the expiring URLs responses carry. */
export type SignUrl = (key: string) => Promise<string>;

export const urlSignerFor = (blobs: BlobStore, ttlSeconds: number): SignUrl =>
  (key) => blobs.signedUrl(key, { expiresInSeconds: ttlSeconds });

/** A photo as the API returns it (and as events carry it), with freshly signed URLs. */
export async function toPhotoView(p: PhotoRow, sign: SignUrl): Promise<PhotoView> {
  const variant = (name: string) => {
    const v = p.variants[name];
    return v ? sign(v.key) : Promise.resolve(null);
  };
  const [original, large, thumbnail, annotated] = await Promise.all([sign(p.blob_key), variant('large'), variant('thumbnail'), variant('annotated')]);
  return {
    id: p.id,
    project_id: p.project_id,
    url: original,
    variants: { original, large, thumbnail, ...(annotated ? { annotated } : {}) },
    width: p.width,
    height: p.height,
    content_type: p.content_type as PhotoView['content_type'],
    byte_size: p.byte_size,
    sha256: p.sha256,
    captured_at: p.captured_at.toISOString(),
    captured_at_source: p.captured_at_source,
    captured_at_time_zone: p.captured_at_time_zone,
    coordinates: p.lat === null || p.lon === null ? null : { lat: p.lat, lon: p.lon, altitude: p.altitude },
    coordinates_source: p.coordinates_source,
    caption: p.caption,
    tags: p.tags,
    annotations: p.annotations as Record<string, unknown>[],
    processing_status: p.processing_status,
    processing_error: p.processing_error,
    source_url: p.source_url,
    creator_id: p.creator_id,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}

export const toPhotoViews = (rows: PhotoRow[], sign: SignUrl): Promise<PhotoView[]> => Promise.all(rows.map((r) => toPhotoView(r, sign)));
