import type { PhotoTimeSource } from '../../db/schema.ts';
import { fixedOffsetZone, instantOf, offsetMinutesAt, timeZoneAt, wallClockAt } from '../../time-zones.ts';
import type { ExifCaptureTime } from './photos.exif.ts';

interface Point {
  lat: number;
  lon: number;
}

/** What decides a photo's zone: where it was taken, else its project's site, else the workspace's setting. */
export interface PlaceOfPhoto {
  photo: Point | null;
  project: Point | null;
  workspaceTimeZone: string;
}

/** The zone of the place a photo was taken, as far as known: its GPS position's, else its project's, else the workspace's. */
export function placeTimeZone(place: PlaceOfPhoto): string {
  const at = (p: Point | null) => (p ? timeZoneAt(p.lat, p.lon) : null);
  return at(place.photo) ?? at(place.project) ?? place.workspaceTimeZone;
}

export interface CaptureTime {
  capturedAt: Date;
  source: Extract<PhotoTimeSource, 'exif_offset' | 'exif_local'>;
  timeZone: string;
}

/**
 * The instant an EXIF time names, and the zone it is local to.
 *
 * With an offset (OffsetTimeOriginal: phones, recent cameras) the instant is exact; its zone is
 * the GPS position's, else the place's zone when that zone had this offset at the time, else a
 * fixed zone of that offset (`Etc/GMT-9`), so it prints as the camera recorded it.
 * Without one (most dedicated cameras) the time is the camera's wall clock, read in the zone of
 * the place (`exif_local`).
 */
export function captureTimeOf(exif: ExifCaptureTime, place: PlaceOfPhoto): CaptureTime {
  const zone = placeTimeZone(place);
  const { wallClock: w, offsetMinutes } = exif;
  if (offsetMinutes !== null) {
    const capturedAt = new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond) - offsetMinutes * 60_000);
    const gpsZone = place.photo ? timeZoneAt(place.photo.lat, place.photo.lon) : null;
    const timeZone = gpsZone
      ?? (offsetMinutesAt(capturedAt, zone) === offsetMinutes ? zone : fixedOffsetZone(offsetMinutes) ?? zone);
    return { capturedAt, source: 'exif_offset', timeZone };
  }
  const capturedAt = instantOf(w, zone)
    ?? new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond));
  return { capturedAt, source: 'exif_local', timeZone: zone };
}

interface TimedRow {
  captured_at: Date;
  captured_at_source: PhotoTimeSource;
  captured_at_time_zone: string | null;
}

/**
 * The time columns after a photo's position changed (a PATCH of `coordinates`): the zone becomes
 * the new place's, and a wall-clock time (`exif_local`) is read again in it — the camera's clock
 * said 14:02 wherever the photo turns out to have been taken. An unprocessed photo gets its zone
 * from the job; an exact time (`exif_offset` without a position) keeps a zone of its own offset.
 */
export function timeAfterMove(row: TimedRow, place: PlaceOfPhoto): { captured_at?: Date; captured_at_time_zone: string } | null {
  const before = row.captured_at_time_zone;
  if (before === null) return null;
  const zone = placeTimeZone(place);
  if (row.captured_at_source === 'exif_offset' && !place.photo) {
    const offset = offsetMinutesAt(row.captured_at, before);
    return { captured_at_time_zone: offsetMinutesAt(row.captured_at, zone) === offset ? zone : fixedOffsetZone(offset) ?? zone };
  }
  if (zone === before) return null;
  if (row.captured_at_source !== 'exif_local') return { captured_at_time_zone: zone };
  const capturedAt = instantOf(wallClockAt(row.captured_at, before), zone);
  return capturedAt ? { captured_at: capturedAt, captured_at_time_zone: zone } : { captured_at_time_zone: zone };
}
