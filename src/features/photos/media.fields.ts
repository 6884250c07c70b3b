import type { FieldError } from '../../http/errors.ts';
import { FormFields, type FormValues } from '../../storage/multipart-upload.ts';
import { CAPTION_MAX } from './photos.schemas.ts';

/**
 * What photos and videos share about their metadata: the multipart fields an upload may carry
 * (caption, capture time, position), and the merge-patch rules that make a client's value the
 * client's for good (EXIF or the video's own metadata never replace it afterwards).
 */
export interface MediaFields {
  caption?: string | null;
  capturedAt?: Date;
  coordinates?: { lat: number; lon: number; altitude: number | null } | null;
}

export const MEDIA_FORM_FIELDS = ['caption', 'captured_at', 'lat', 'lon', 'altitude'] as const;

/** The media fields of a multipart form, checked like the JSON fields, with the same paths. */
export function parseMediaFields(values: FormValues, errors: FieldError[]): MediaFields {
  const form = new FormFields(values, errors);
  const fields: MediaFields = {};
  const caption = form.text('caption', CAPTION_MAX);
  if (caption !== undefined) fields.caption = caption === '' ? null : caption;
  const capturedAt = form.timestamp('captured_at');
  if (capturedAt) fields.capturedAt = capturedAt;
  const lat = form.number('lat', -90, 90);
  const lon = form.number('lon', -180, 180);
  const altitude = form.number('altitude', -20_000, 100_000);
  if (form.has('lat') !== form.has('lon')) form.error(form.has('lat') ? 'lon' : 'lat', 'lat and lon go together');
  else if (!form.has('lat') && form.has('altitude')) form.error('altitude', 'needs lat and lon');
  else if (lat !== undefined && lon !== undefined) fields.coordinates = { lat, lon, altitude: altitude ?? null };
  return fields;
}

interface MediaRow {
  caption: string | null;
  captured_at: Date;
  captured_at_source: string;
  lat: number | null;
  lon: number | null;
  altitude: number | null;
  coordinates_source: string | null;
}

export interface MediaPatch {
  caption?: string | null;
  captured_at?: string;
  coordinates?: { lat: number; lon: number; altitude?: number | null } | null;
}

/** The columns a merge patch of caption, time and position changes (none when nothing differs). */
export function mediaChangesOf(row: MediaRow, patch: MediaPatch) {
  const changes: Partial<MediaRow & { captured_at_source: 'client'; coordinates_source: 'client' | null }> = {};
  if (patch.caption !== undefined && patch.caption !== row.caption) changes.caption = patch.caption;
  if (patch.captured_at !== undefined) {
    const at = new Date(patch.captured_at);
    if (at.getTime() !== row.captured_at.getTime() || row.captured_at_source !== 'client') {
      changes.captured_at = at;
      changes.captured_at_source = 'client';
    }
  }
  if (patch.coordinates !== undefined) {
    const next = patch.coordinates;
    const same = next === null
      ? row.lat === null
      : next.lat === row.lat && next.lon === row.lon && (next.altitude ?? null) === row.altitude && row.coordinates_source === 'client';
    if (!same) {
      changes.lat = next?.lat ?? null;
      changes.lon = next?.lon ?? null;
      changes.altitude = next?.altitude ?? null;
      changes.coordinates_source = next ? 'client' : null;
    }
  }
  return changes;
}
