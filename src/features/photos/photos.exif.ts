/**
 * EXIF of a photo (exifr): capture time, GPS position and orientation, as plain values. Part of
 * the photo media adapter (photos.media.ts re-exports it).
 */
import exifr from 'exifr';
import type { WallClock } from '../../time-zones.ts';

/** A capture time as EXIF holds it: the camera's wall clock, and its offset from UTC when the file has one. */
export interface ExifCaptureTime {
  wallClock: WallClock;
  /** Minutes east of UTC (OffsetTimeOriginal, else OffsetTime); null when the file says nothing. */
  offsetMinutes: number | null;
}

export interface PhotoExif {
  captureTime: ExifCaptureTime | null;
  coordinates: { lat: number; lon: number } | null;
  /** Metres above sea level (negative below). */
  altitude: number | null;
  /** EXIF orientation 1..8. */
  orientation: number | null;
}

const NO_EXIF: PhotoExif = { captureTime: null, coordinates: null, altitude: null, orientation: null };

/**
 * Capture time, GPS position and orientation from EXIF. Never throws for a missing, corrupt or
 * unreadable EXIF block: whatever cannot be read is null.
 *
 * captureTime: DateTimeOriginal (else CreateDate) as the wall clock it is, with
 * OffsetTimeOriginal (else OffsetTime) when present; which zone an offset-less time is read in
 * is the caller's business (photos.jobs.ts). Sub-seconds from SubSecTimeOriginal are kept.
 */
export async function readExif(input: string | Buffer): Promise<PhotoExif> {
  let tags: Record<string, unknown> | undefined;
  try {
    tags = await exifr.parse(input, {
      tiff: true, ifd0: true, exif: true, gps: true,
      ifd1: false, xmp: false, icc: false, iptc: false, jfif: false, ihdr: false,
      translateValues: false, reviveValues: false, sanitize: true, mergeOutput: true, silentErrors: true,
    } as never) as Record<string, unknown> | undefined;
  } catch {
    return { ...NO_EXIF };
  }
  if (!tags || typeof tags !== 'object') return { ...NO_EXIF };
  return {
    captureTime: exifCaptureTime(tags),
    coordinates: exifCoordinates(tags),
    altitude: exifAltitude(tags),
    orientation: exifOrientation(tags.Orientation),
  };
}

function exifCaptureTime(tags: Record<string, unknown>): ExifCaptureTime | null {
  const raw = typeof tags.DateTimeOriginal === 'string' ? tags.DateTimeOriginal : typeof tags.CreateDate === 'string' ? tags.CreateDate : null;
  if (!raw) return null;
  const m = /^\s*(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?/.exec(raw);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fracInline] = m;
  const subsec = typeof tags.SubSecTimeOriginal === 'string' || typeof tags.SubSecTimeOriginal === 'number'
    ? String(tags.SubSecTimeOriginal).trim() : fracInline ?? '';
  const ms = /^\d+$/.test(subsec) ? Math.min(999, Math.round(Number(`0.${subsec}`) * 1000)) : 0;
  const offsetRaw = typeof tags.OffsetTimeOriginal === 'string' ? tags.OffsetTimeOriginal : typeof tags.OffsetTime === 'string' ? tags.OffsetTime : '';
  const off = /^\s*([+-])(\d{2}):?(\d{2})\s*$/.exec(offsetRaw);
  const offsetMinutes = off ? (off[1] === '-' ? -1 : 1) * (Number(off[2]) * 60 + Number(off[3])) : null;
  const nums = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  if (nums[0] < 1900 || nums[1] < 1 || nums[1] > 12 || nums[2] < 1 || nums[2] > 31 || nums[3] > 23 || nums[4] > 59 || nums[5] > 60) return null;
  if (offsetMinutes !== null && Math.abs(offsetMinutes) > 14 * 60) return null;
  // A leap second (:60) is read as the next minute's :00, like Date.UTC does.
  const utc = new Date(Date.UTC(nums[0], nums[1] - 1, nums[2], nums[3], nums[4], nums[5], ms));
  if (utc.getUTCDate() !== nums[2] && nums[5] !== 60) return null; // 31 April
  return {
    wallClock: {
      year: utc.getUTCFullYear(), month: utc.getUTCMonth() + 1, day: utc.getUTCDate(),
      hour: utc.getUTCHours(), minute: utc.getUTCMinutes(), second: utc.getUTCSeconds(), millisecond: utc.getUTCMilliseconds(),
    },
    offsetMinutes,
  };
}

function dms(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (Array.isArray(v) && v.length >= 1 && v.length <= 3 && v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    const [d = 0, m = 0, s = 0] = v as number[];
    return d + m / 60 + s / 3600;
  }
  return null;
}

function exifCoordinates(tags: Record<string, unknown>): { lat: number; lon: number } | null {
  let lat = dms(tags.GPSLatitude);
  let lon = dms(tags.GPSLongitude);
  if (lat === null || lon === null) return null;
  if (String(tags.GPSLatitudeRef ?? 'N').trim().toUpperCase() === 'S') lat = -lat;
  if (String(tags.GPSLongitudeRef ?? 'E').trim().toUpperCase() === 'W') lon = -lon;
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  // Many cameras write 0/0 when they had no fix.
  if (lat === 0 && lon === 0) return null;
  return { lat: round(lat, 7), lon: round(lon, 7) };
}

function exifAltitude(tags: Record<string, unknown>): number | null {
  const a = typeof tags.GPSAltitude === 'number' && Number.isFinite(tags.GPSAltitude) ? tags.GPSAltitude : null;
  if (a === null) return null;
  const ref = tags.GPSAltitudeRef;
  const below = ref === 1 || (ref instanceof Uint8Array && ref[0] === 1) || (Array.isArray(ref) && ref[0] === 1);
  return round(below ? -a : a, 2);
}

function exifOrientation(v: unknown): number | null {
  const o = typeof v === 'number' ? v : Array.isArray(v) && typeof v[0] === 'number' ? v[0] : null;
  return o !== null && Number.isInteger(o) && o >= 1 && o <= 8 ? o : null;
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
