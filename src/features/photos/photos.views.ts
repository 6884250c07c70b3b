import type { Selectable } from 'kysely';
import type { PhotosTable } from '../../db/schema.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { PhotoView } from './photos.schemas.ts';

/** A photo row as the repository reads it: the table's columns, its tags (sorted by name) among them (migration 024). */
export type PhotoRow = Selectable<PhotosTable>;
export type { PhotoView };

/** Signs blob keys into the expiring URLs responses carry. */
export type SignUrl = (key: string) => Promise<string>;

export const urlSignerFor = (blobs: BlobStore, ttlSeconds: number): SignUrl =>
  (key) => blobs.signedUrl(key, { expiresInSeconds: ttlSeconds });

/** The blob keys a photo's view signs, in the order photoView takes their URLs: original, large, thumbnail, annotated. */
const keysOf = (p: PhotoRow): (string | null)[] =>
  [p.blob_key, p.variants.large?.key ?? null, p.variants.thumbnail?.key ?? null, p.variants.annotated?.key ?? null];

/** A photo as the API returns it (and as events carry it), with freshly signed URLs. */
export async function toPhotoView(p: PhotoRow, sign: SignUrl): Promise<PhotoView> {
  return (await toPhotoViews([p], sign))[0]!;
}

/** Photos as the API returns them: every URL of the page signed at once, then each view built without waiting. */
export async function toPhotoViews(rows: PhotoRow[], sign: SignUrl): Promise<PhotoView[]> {
  const urls = await Promise.all(rows.flatMap(keysOf).map((key) => (key === null ? null : sign(key))));
  return rows.map((p, i) => photoView(p, urls[4 * i]!, urls[4 * i + 1]!, urls[4 * i + 2]!, urls[4 * i + 3]!));
}

function photoView(p: PhotoRow, original: string, large: string | null, thumbnail: string | null, annotated: string | null): PhotoView {
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
