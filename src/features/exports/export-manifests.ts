import { DateTime } from 'luxon';
import type { ExportPhotoRow } from './export-content.repository.ts';

/** A photo in the ZIP: its row, the name of its file, and the zone its local time is read in. */
export interface ExportEntry {
  photo: ExportPhotoRow;
  file: string;
  zone: string;
}

export interface ManifestHeader {
  exportId: string;
  project: { id: string; name: string };
  requestedAt: Date;
  generatedAt: Date;
}

/** `2026-03-02T08:00:00.000+01:00`: the capture time as the wall clock showed it where it was taken. */
const localTime = (e: ExportEntry) => DateTime.fromJSDate(e.photo.capturedAt, { zone: e.zone }).toISO({ includeOffset: true })!;

/** One photo as photos.json lists it (photos.csv has the same facts, flattened). */
export function manifestRecord(e: ExportEntry) {
  const p = e.photo;
  return {
    id: p.id,
    file: e.file,
    caption: p.caption,
    captured_at: p.capturedAt.toISOString(),
    captured_at_local: localTime(e),
    captured_at_time_zone: e.zone,
    captured_at_source: p.capturedAtSource,
    coordinates: p.lat === null || p.lon === null ? null : { lat: p.lat, lon: p.lon, altitude: p.altitude },
    tags: p.tags,
    uploader: p.uploader,
    content_type: p.contentType,
    byte_size: p.byteSize,
    width: p.width,
    height: p.height,
    sha256: p.sha256,
  };
}

/**
 * photos.json, a chunk per photo (never the whole document in one string):
 * `{"export": {…}, "photos": [{…}, …]}`, pretty-printed.
 */
export function* jsonManifest(header: ManifestHeader, entries: readonly ExportEntry[]): Generator<string> {
  const head = {
    id: header.exportId, project: header.project, requested_at: header.requestedAt.toISOString(),
    generated_at: header.generatedAt.toISOString(), photo_count: entries.length,
  };
  yield `{\n  "export": ${JSON.stringify(head)},\n  "photos": [`;
  for (const [i, e] of entries.entries()) yield `${i === 0 ? '' : ','}\n    ${JSON.stringify(manifestRecord(e))}`;
  yield `${entries.length ? '\n  ' : ''}]\n}\n`;
}

export const CSV_COLUMNS = [
  'id', 'file', 'caption', 'captured_at', 'captured_at_local', 'captured_at_time_zone', 'captured_at_source',
  'latitude', 'longitude', 'altitude', 'tags', 'uploader_name', 'uploader_handle', 'uploader_id',
  'content_type', 'byte_size', 'width', 'height', 'sha256',
] as const;

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled.
 * Free text that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a
 * leading `'` (OWASP's advice against CSV injection); photos.json keeps the text exactly.
 */
export function csvField(value: string | number | null, freeText = false): string {
  if (value === null) return '';
  let text = String(value);
  if (freeText && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * photos.csv: UTF-8 with a byte order mark (without it, Excel reads UTF-8 as the local code page
 * and mangles every accent), a header row, CRLF line ends; tags joined by `; `.
 */
export function* csvManifest(entries: readonly ExportEntry[]): Generator<string> {
  yield `\ufeff${CSV_COLUMNS.join(',')}\r\n`;
  for (const e of entries) {
    const r = manifestRecord(e);
    const fields: (string | number | null)[] = [
      r.id, csvField(r.file, true), csvField(r.caption, true), r.captured_at, r.captured_at_local, r.captured_at_time_zone, r.captured_at_source,
      r.coordinates?.lat ?? null, r.coordinates?.lon ?? null, r.coordinates?.altitude ?? null,
      csvField(r.tags.map((t) => t.name).join('; '), true), csvField(r.uploader.name, true), csvField(r.uploader.handle, true), r.uploader.id,
      r.content_type, r.byte_size, r.width, r.height, r.sha256,
    ];
    yield `${fields.map((f) => (f === null ? '' : String(f))).join(',')}\r\n`;
  }
}
