/**
 * Time zones: which zone a place is in (an offline lookup of the time-zone boundaries, geo-tz),
 * what an IANA name means, and how a camera's wall-clock time becomes an instant (luxon, which
 * knows each zone's DST rules through Intl). Used for photo capture times, projects and reports.
 */
import { createRequire } from 'node:module';
import { DateTime } from 'luxon';

/** The zone a workspace starts with, and the last resort when nothing says better. */
export const DEFAULT_TIME_ZONE = 'UTC';

/**
 * The canonical spelling of an IANA time-zone name this runtime knows (`europe/paris` →
 * `Europe/Paris`, `UTC`), or null for anything else (`CST`, `+02:00`, `Mars/Olympus`).
 */
export function canonicalTimeZone(name: string): string | null {
  if (name.length === 0 || name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

type FindZones = (lat: number, lon: number) => string[];
let findZones: FindZones | null = null;

/** Boundary pieces kept in memory; photos cluster around a few sites, so a small cache serves nearly every lookup. */
const CACHE_ENTRIES = 256;

/** geo-tz's feature cache, bounded: its own is an unbounded Map that would grow with every region ever looked up. */
class BoundedStore {
  private readonly map = new Map<string, unknown>();
  get(key: string): unknown {
    return this.map.get(key);
  }
  set(key: string, value: unknown): void {
    if (this.map.size >= CACHE_ENTRIES) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }
}

/** Loaded on first use: the index is a megabyte of JSON that the API process rarely needs. */
function finder(): FindZones {
  if (!findZones) {
    // The comprehensive data set: real names per country (Atlantic/Reykjavik, not the merged Africa/Abidjan).
    const geoTz = createRequire(import.meta.url)('geo-tz/all') as { find: FindZones; setCache(options: { store: BoundedStore }): void };
    geoTz.setCache({ store: new BoundedStore() });
    findZones = geoTz.find;
  }
  return findZones;
}

/**
 * The IANA zone in force at a position (the ocean's nautical `Etc/GMT±n` at sea), or null when
 * the position is not a valid one or the lookup fails. On a border the first zone found wins.
 */
export function timeZoneAt(lat: number, lon: number): string | null {
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  try {
    const zone = finder()(lat, lon)[0];
    return zone === undefined ? null : canonicalTimeZone(zone);
  } catch {
    return null;
  }
}

/** A wall-clock reading (a camera's clock), month 1..12. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/**
 * The instant a wall-clock time names in a zone. In the hour skipped when clocks go forward the
 * time is read with the offset before the change (02:30 on a spring-forward night is 03:30); in
 * the hour repeated when they go back, the first of the two. This is Temporal's "compatible"
 * rule. (luxon's own DateTime.fromObject picks the repeated hour by the season the server is in
 * when it runs, so the choice is made here from the zone's offsets a day either side.)
 */
export function instantOf(wall: WallClock, zone: string): Date | null {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond);
  if (!Number.isFinite(asUtc) || canonicalTimeZone(zone) === null) return null;
  const DAY = 86_400_000;
  const before = offsetMinutesAt(new Date(asUtc - DAY), zone);
  const after = offsetMinutesAt(new Date(asUtc + DAY), zone);
  // Each offset in force around then names one candidate instant; it counts if the zone really had that offset at it.
  const fits = [...new Set([before, after])].map((o) => asUtc - o * 60_000).filter((t) => offsetMinutesAt(new Date(t), zone) * 60_000 === asUtc - t);
  return new Date(fits.length > 0 ? Math.min(...fits) : asUtc - before * 60_000);
}

/** What a wall clock in the zone showed at an instant (the inverse of instantOf). */
export function wallClockAt(at: Date, zone: string): WallClock {
  const { year, month, day, hour, minute, second, millisecond } = DateTime.fromJSDate(at, { zone });
  return { year, month, day, hour, minute, second, millisecond };
}

/** The zone's offset from UTC at an instant, in minutes (Chicago in January: -360). */
export function offsetMinutesAt(at: Date, zone: string): number {
  return DateTime.fromJSDate(at, { zone }).offset;
}

/**
 * A zone that is always at this offset (`Etc/GMT-9` for +09:00: POSIX signs are reversed), or
 * null when none exists (IANA has whole hours only, from -12 to +14).
 */
export function fixedOffsetZone(minutes: number): string | null {
  if (minutes === 0) return 'UTC';
  if (minutes % 60 !== 0 || minutes < -12 * 60 || minutes > 14 * 60) return null;
  const hours = minutes / 60;
  return `Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`;
}
