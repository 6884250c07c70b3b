import type { Geofence } from '../../db/schema.ts';
import { unprocessable } from '../../http/errors.ts';

/**
 * Project geofences (docs/photos.md, "Photos that file themselves"): a GeoJSON Polygon of one
 * ring of [longitude, latitude] positions, or `{radius_m}` around the project's coordinates.
 * Edges are straight lines in longitude/latitude, which is exact enough at the size of a site;
 * a fence may not cross the antimeridian. Here: the checks that give a bad fence its 422, its
 * bounding box and area (stored beside it, so the fences holding a point are found through an
 * index), and the exact tests the filing job applies to the few fences the box lets through.
 */

export type { Geofence };

export interface Point {
  lat: number;
  lon: number;
}

export interface GeofenceBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** The most positions a polygon's ring may have, the closing one included. */
export const MAX_GEOFENCE_POSITIONS = 1000;
export const MIN_GEOFENCE_RADIUS_M = 1;
export const MAX_GEOFENCE_RADIUS_M = 50_000;

/** Mean Earth radius (IUGG), for distances; the WGS 84 equatorial radius for areas, as GeoJSON tools use. */
const EARTH_RADIUS_M = 6_371_008.8;
const EQUATORIAL_RADIUS_M = 6_378_137;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in metres (haversine). */
export function distanceMeters(a: Point, b: Point): number {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * The box holding every point within `meters` of `center` (a little more, never less). One that
 * would reach a pole or cross the antimeridian spans every longitude: still a superset.
 */
export function boxAround(center: Point, meters: number): GeofenceBox {
  const dLat = (meters / EARTH_RADIUS_M) * (180 / Math.PI) * 1.01;
  const minLat = center.lat - dLat;
  const maxLat = center.lat + dLat;
  if (minLat <= -90 || maxLat >= 90) return { minLon: -180, minLat: Math.max(minLat, -90), maxLon: 180, maxLat: Math.min(maxLat, 90) };
  const dLon = dLat / Math.cos(rad(Math.max(Math.abs(minLat), Math.abs(maxLat))));
  if (center.lon - dLon < -180 || center.lon + dLon > 180) return { minLon: -180, minLat, maxLon: 180, maxLat };
  return { minLon: center.lon - dLon, minLat, maxLon: center.lon + dLon, maxLat };
}

/** What is stored beside a fence: its box and area; null without a fence. */
export interface GeofenceColumns {
  geofence: string | null;
  geofence_min_lon: number | null;
  geofence_min_lat: number | null;
  geofence_max_lon: number | null;
  geofence_max_lat: number | null;
  geofence_area_m2: number | null;
}

export function geofenceColumns(fence: Geofence | null, coordinates: Point | null): GeofenceColumns {
  if (fence === null) {
    return { geofence: null, geofence_min_lon: null, geofence_min_lat: null, geofence_max_lon: null, geofence_max_lat: null, geofence_area_m2: null };
  }
  let box: GeofenceBox;
  let area: number;
  if ('radius_m' in fence) {
    // Checked by checkGeofence: a radius is only accepted with coordinates.
    box = boxAround(coordinates!, fence.radius_m);
    area = Math.PI * fence.radius_m ** 2;
  } else {
    const ring = fence.coordinates[0]!;
    const lons = ring.map((p) => p[0]!);
    const lats = ring.map((p) => p[1]!);
    box = { minLon: Math.min(...lons), minLat: Math.min(...lats), maxLon: Math.max(...lons), maxLat: Math.max(...lats) };
    area = ringArea(ring);
  }
  return {
    geofence: JSON.stringify(fence),
    geofence_min_lon: box.minLon, geofence_min_lat: box.minLat, geofence_max_lon: box.maxLon, geofence_max_lat: box.maxLat,
    geofence_area_m2: area,
  };
}

/** Whether the fence holds the point; a point on a polygon's edge is inside. */
export function fenceContains(fence: Geofence, center: Point | null, point: Point): boolean {
  if ('radius_m' in fence) return center !== null && distanceMeters(center, point) <= fence.radius_m;
  return ringContains(fence.coordinates[0]!, [point.lon, point.lat]);
}

/**
 * 422 with a stable code when the fence cannot be used: a ring not closed, too few or too many
 * positions, a position off the globe, edges that cross, no area; a radius without coordinates.
 * The schema already checked the shape (a Polygon of one ring of numbers, or radius_m in range).
 */
export function checkGeofence(fence: Geofence, coordinates: Point | null): void {
  const path = 'body.geofence';
  if ('radius_m' in fence) {
    if (coordinates === null) {
      unprocessable('geofence_without_coordinates', 'A radius geofence is drawn around the project\'s coordinates; set `coordinates` as well.',
        [{ path: `${path}.radius_m`, message: 'needs the project\'s coordinates' }]);
    }
    return;
  }
  const ring = fence.coordinates[0]!;
  const ringPath = `${path}.coordinates.0`;
  if (ring.length > MAX_GEOFENCE_POSITIONS) {
    unprocessable('geofence_too_many_positions', `The ring has ${ring.length} positions; at most ${MAX_GEOFENCE_POSITIONS} are allowed.`,
      [{ path: ringPath, message: `must have at most ${MAX_GEOFENCE_POSITIONS} positions` }]);
  }
  ring.forEach((position, i) => {
    const [lon, lat] = position as [number, number];
    if (!(Math.abs(lon) <= 180) || !(Math.abs(lat) <= 90)) {
      unprocessable('geofence_invalid_position', `Position ${i} is [${lon}, ${lat}]: positions are [longitude -180..180, latitude -90..90].`,
        [{ path: `${ringPath}.${i}`, message: 'must be [longitude -180..180, latitude -90..90]' }]);
    }
  });
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  if (first[0] !== last[0] || first[1] !== last[1]) {
    unprocessable('geofence_not_closed', 'A polygon\'s ring must end at the position it starts from (GeoJSON, RFC 7946 §3.1.6).',
      [{ path: ringPath, message: 'the last position must equal the first' }]);
  }
  const corners = distinctCorners(ring);
  if (corners.length < 3) {
    unprocessable('geofence_too_few_positions', 'A polygon\'s ring needs at least three different corners, and the first repeated at the end.',
      [{ path: ringPath, message: 'must have at least 4 positions, 3 of them different' }]);
  }
  const crossing = firstCrossing(corners);
  if (crossing !== null) {
    unprocessable('geofence_self_intersection', `The ring crosses itself: edge ${crossing[0]} meets edge ${crossing[1]}. Draw the outline without crossings.`,
      [{ path: ringPath, message: 'edges must not cross or touch each other' }]);
  }
  if (ringArea(ring) < 1) {
    unprocessable('geofence_zero_area', 'The ring encloses no area (its corners lie on one line).', [{ path: ringPath, message: 'must enclose an area' }]);
  }
}

/** The ring's corners without the closing position and without repeats of the previous one. */
function distinctCorners(ring: number[][]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of ring.slice(0, -1)) {
    const prev = out[out.length - 1];
    if (!prev || prev[0] !== p[0] || prev[1] !== p[1]) out.push([p[0]!, p[1]!]);
  }
  while (out.length > 1 && out[0]![0] === out[out.length - 1]![0] && out[0]![1] === out[out.length - 1]![1]) out.pop();
  return out;
}

type Vec = [number, number];
const cross = (o: Vec, a: Vec, b: Vec) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
const onSegment = (p: Vec, a: Vec, b: Vec) =>
  Math.min(a[0], b[0]) <= p[0] && p[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= p[1] && p[1] <= Math.max(a[1], b[1]);

/** Whether segments ab and cd share any point (touching and overlapping included). */
function segmentsMeet(a: Vec, b: Vec, c: Vec, d: Vec): boolean {
  const d1 = cross(c, d, a);
  const d2 = cross(c, d, b);
  const d3 = cross(a, b, c);
  const d4 = cross(a, b, d);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (d1 === 0 && onSegment(a, c, d)) || (d2 === 0 && onSegment(b, c, d)) || (d3 === 0 && onSegment(c, a, b)) || (d4 === 0 && onSegment(d, a, b));
}

/**
 * The first pair of edges (by index) that meet other than at the corner they share, or null.
 * Neighbouring edges may only share their corner: one folding back over the other is a crossing.
 * At most 1,000 positions: the half-million pairs take a few milliseconds.
 */
function firstCrossing(corners: Vec[]): [number, number] | null {
  const n = corners.length;
  const edge = (i: number): [Vec, Vec] => [corners[i]!, corners[(i + 1) % n]!];
  for (let i = 0; i < n; i++) {
    const [a, b] = edge(i);
    for (let j = i + 1; j < n; j++) {
      const [c, d] = edge(j);
      const neighbours = j === i + 1 || (i === 0 && j === n - 1);
      if (!neighbours) {
        if (segmentsMeet(a, b, c, d)) return [i, j];
        continue;
      }
      // Neighbours share one corner; they must not run back along each other.
      const [shared, other1, other2] = j === i + 1 ? [b, a, d] : [a, b, c];
      if (cross(shared, other1, other2) === 0 && (other2[0] - shared[0]) * (other1[0] - shared[0]) + (other2[1] - shared[1]) * (other1[1] - shared[1]) > 0) {
        return [i, j];
      }
    }
  }
  return null;
}

/** Area of a ring on the sphere in m² (Chamberlain & Duquette, as in GeoJSON tools); either winding. */
function ringArea(ring: number[][]): number {
  const n = ring.length;
  if (n < 4) return 0;
  let total = 0;
  for (let i = 0; i < n - 1; i++) {
    const lower = ring[i]!;
    const middle = ring[(i + 1) % (n - 1)]!;
    const upper = ring[(i + 2) % (n - 1)]!;
    total += (rad(upper[0]!) - rad(lower[0]!)) * Math.sin(rad(middle[1]!));
  }
  return Math.abs((total * EQUATORIAL_RADIUS_M * EQUATORIAL_RADIUS_M) / 2);
}

/** Ray casting in longitude/latitude; a point on an edge counts as inside. */
function ringContains(ring: number[][], p: Vec): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i] as Vec;
    const b = ring[j] as Vec;
    if (cross(a, b, p) === 0 && onSegment(p, a, b)) return true;
    if ((a[1] > p[1]) !== (b[1] > p[1]) && p[0] < ((b[0] - a[0]) * (p[1] - a[1])) / (b[1] - a[1]) + a[0]) inside = !inside;
  }
  return inside;
}
