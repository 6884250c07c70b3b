import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { ApiError, badRequest, validationFailed, type FieldError } from '../../http/errors.ts';
import { OutboundError, outboundDownload } from '../../http/outbound.ts';
import { parseAllowList } from '../../http/ssrf-guard.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { formatBytes, intake, type Intake } from '../../storage/intake.ts';
import { HEADER_PREFIX_BYTES, MediaError, readImageHeader } from './photos.media.ts';
import { CAPTION_MAX, MAX_TAG_IDS, type PhotoImportInput } from './photos.schemas.ts';
import { sniffImageType, type ImageMime } from './photos.sniff.ts';

/** What an upload says about the photo besides its bytes; undefined: not given. */
export interface PhotoFields {
  caption?: string | null;
  capturedAt?: Date;
  coordinates?: { lat: number; lon: number; altitude: number | null } | null;
  tagIds?: string[];
}

export interface ReceivedPhoto {
  stored: Intake<ImageMime>;
  fields: PhotoFields;
  sourceUrl: string | null;
}

const ACCEPTED = 'a JPEG, PNG, HEIC/HEIF or WebP image';
const FORM_FIELDS = new Set(['caption', 'captured_at', 'lat', 'lon', 'altitude', 'tag_ids']);
const TAG_ID = /^tag_[0-9a-hjkmnp-tv-z]{26}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Receives a photo's bytes into the blob store: a multipart upload read as a stream, or a
 * `source_url` fetched through the SSRF guard. The content is sniffed from the first bytes and
 * the declared pixel count read from the header before anything is stored, so a decompression
 * bomb is refused (422) without being decoded. On any refusal nothing is left in the store.
 */
export class PhotoIntake {
  private readonly allow;

  constructor(private readonly blobs: BlobStore, private readonly config: Config) {
    this.allow = parseAllowList(config.webhookAllowPrivate);
  }

  private receive(body: AsyncIterable<unknown>, maxBytes = this.config.media.photoMaxBytes) {
    const maxPixels = this.config.media.photoMaxPixels;
    return intake<ImageMime>(this.blobs, body, {
      kind: 'photos', maxBytes, headBytes: HEADER_PREFIX_BYTES, sniff: sniffImageType, accepted: ACCEPTED,
      async inspect(head, _type, complete) {
        let pixels: number;
        let size: string;
        try {
          const header = await readImageHeader(head);
          pixels = header.pixels;
          size = `${header.width} × ${header.height}`;
        } catch (err) {
          // A header beyond the first 256 KB cannot be judged yet; the processing job applies
          // the same limit before decoding. A whole file without a readable header is refused.
          if (complete && err instanceof MediaError) {
            throw new ApiError(422, 'image_unreadable', 'Unreadable image', `The file starts like an image, but its header cannot be read: ${err.message}`);
          }
          return;
        }
        if (pixels > maxPixels) {
          throw new ApiError(422, 'too_many_pixels', 'Too many pixels',
            `The image is ${size} pixels (${(pixels / 1e6).toFixed(1)} MP); the limit is ${(maxPixels / 1e6).toFixed(1)} MP.`);
        }
      },
    });
  }

  /** A multipart/form-data upload: one `file` part plus form fields, in any order. */
  async fromMultipart(req: FastifyRequest): Promise<ReceivedPhoto> {
    const raw = new Map<string, string[]>();
    const errors: FieldError[] = [];
    let stored: Intake<ImageMime> | null = null;
    try {
      const parts = req.parts({
        limits: { fileSize: this.config.media.photoMaxBytes + 1, files: 1, fields: 30, fieldSize: 16 * 1024, parts: 31, headerPairs: 100 },
      });
      for await (const part of parts) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file') {
            part.file.resume();
            errors.push({ path: `body.${part.fieldname}`, message: 'unknown file field; send the photo as `file`' });
            continue;
          }
          stored = await this.receive(part.file);
        } else {
          if (!FORM_FIELDS.has(part.fieldname)) errors.push({ path: `body.${part.fieldname}`, message: 'unknown field' });
          else raw.set(part.fieldname, [...(raw.get(part.fieldname) ?? []), String(part.value)]);
        }
      }
      if (!stored) {
        if (errors.length) validationFailed(errors);
        throw new ApiError(400, 'missing_file', 'Missing file', 'A multipart upload needs the photo in a part named `file`.');
      }
      const fields = parseFormFields(raw, errors);
      if (errors.length) validationFailed(errors);
      return { stored, fields, sourceUrl: null };
    } catch (err) {
      if (stored) await this.discard(stored);
      throw translateMultipartError(err, this.config.media.photoMaxBytes);
    }
  }

  /** A JSON `{source_url, …}`: fetched with the webhook SSRF rules, a deadline and the same limits. */
  async fromUrl(input: PhotoImportInput): Promise<ReceivedPhoto> {
    const fields: PhotoFields = {
      caption: input.caption,
      capturedAt: input.captured_at === undefined ? undefined : new Date(input.captured_at),
      coordinates: input.coordinates === undefined ? undefined : input.coordinates && { lat: input.coordinates.lat, lon: input.coordinates.lon, altitude: input.coordinates.altitude ?? null },
      tagIds: input.tag_ids,
    };
    const max = this.config.media.photoMaxBytes;
    const failed = (detail: string) => new ApiError(422, 'import_failed', 'Import failed', `Could not import ${input.source_url}: ${detail}`);
    let download;
    try {
      download = await outboundDownload(input.source_url, {
        userAgent: 'Jobsite-Import (+' + this.config.publicUrl + ')',
        timeoutMs: this.config.media.importTimeoutSeconds * 1000,
        allow: this.allow,
      });
    } catch (err) {
      if (err instanceof OutboundError) throw failed(err.message);
      throw err;
    }
    if (download.status < 200 || download.status > 299) {
      download.cancel();
      throw failed(`the server answered ${download.status}.`);
    }
    const declared = Number(download.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      download.cancel();
      throw failed(`the file is ${declared} bytes, more than the limit of ${formatBytes(max)}.`);
    }
    try {
      const stored = await this.receive(download.body, max);
      return { stored, fields, sourceUrl: input.source_url };
    } catch (err) {
      download.cancel();
      if (err instanceof OutboundError) throw failed(err.message);
      if (err instanceof ApiError && (err.status === 413 || err.status === 415)) throw failed(err.detail ?? err.title);
      throw err;
    }
  }

  /** Removes an object that was stored for a request that then failed. */
  async discard(stored: Intake<ImageMime>): Promise<void> {
    await this.blobs.delete(stored.key).catch(() => undefined);
  }
}

/** Multipart fields arrive as text; they get the same checks as the JSON fields, with the same paths. */
function parseFormFields(raw: Map<string, string[]>, errors: FieldError[]): PhotoFields {
  const fields: PhotoFields = {};
  const single = (name: string): string | undefined => {
    const values = raw.get(name);
    if (!values) return undefined;
    if (values.length > 1) errors.push({ path: `body.${name}`, message: 'must be given once' });
    return values[0];
  };
  const caption = single('caption');
  if (caption !== undefined) {
    if (caption.length > CAPTION_MAX) errors.push({ path: 'body.caption', message: `must NOT have more than ${CAPTION_MAX} characters` });
    fields.caption = caption === '' ? null : caption;
  }
  const capturedAt = single('captured_at');
  if (capturedAt !== undefined) {
    const t = Date.parse(capturedAt);
    if (!RFC3339.test(capturedAt) || Number.isNaN(t)) errors.push({ path: 'body.captured_at', message: 'must be an RFC 3339 date-time, e.g. 2026-05-04T09:30:00Z' });
    else fields.capturedAt = new Date(t);
  }
  const number = (name: string, min: number, max: number): number | undefined => {
    const text = single(name);
    if (text === undefined) return undefined;
    const v = text.trim() === '' ? NaN : Number(text);
    if (!Number.isFinite(v) || v < min || v > max) {
      errors.push({ path: `body.${name}`, message: `must be a number from ${min} to ${max}` });
      return undefined;
    }
    return v;
  };
  const lat = number('lat', -90, 90);
  const lon = number('lon', -180, 180);
  const altitude = number('altitude', -20_000, 100_000);
  const hasLat = raw.has('lat');
  const hasLon = raw.has('lon');
  if (hasLat !== hasLon) errors.push({ path: `body.${hasLat ? 'lon' : 'lat'}`, message: 'lat and lon go together' });
  else if (!hasLat && raw.has('altitude')) errors.push({ path: 'body.altitude', message: 'needs lat and lon' });
  else if (lat !== undefined && lon !== undefined) fields.coordinates = { lat, lon, altitude: altitude ?? null };
  const tagValues = raw.get('tag_ids');
  if (tagValues) {
    const ids = tagValues.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
    const bad = ids.find((id) => !TAG_ID.test(id));
    if (bad !== undefined) errors.push({ path: 'body.tag_ids', message: `"${bad.slice(0, 40)}" is not a tag id (tag_…)` });
    else if (ids.length > MAX_TAG_IDS) errors.push({ path: 'body.tag_ids', message: `at most ${MAX_TAG_IDS} tags` });
    else fields.tagIds = [...new Set(ids)];
  }
  return fields;
}

/** @fastify/multipart's limit errors as our problems. */
function translateMultipartError(err: unknown, maxBytes: number): unknown {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new ApiError(413, 'payload_too_large', 'Payload too large', `The file is larger than the limit of ${formatBytes(maxBytes)}.`);
  if (code === 'FST_FILES_LIMIT') return badRequest('bad_request', 'Send one photo per request, in the part named `file`.');
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return badRequest('bad_request', 'The form has too many fields.');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_MULTIPART_INVALID_CONTENT_TYPE') {
    return badRequest('bad_request', 'The multipart body is malformed (missing or wrong boundary).');
  }
  if (err instanceof Error && /Unexpected end of (form|multipart)|Malformed part header|boundary/i.test(err.message)) {
    return badRequest('bad_request', `The multipart body is malformed: ${err.message}`);
  }
  return err;
}
