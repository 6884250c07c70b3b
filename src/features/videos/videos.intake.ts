import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { ApiError, badRequest, validationFailed, type FieldError } from '../../http/errors.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { formatBytes, intake, type Intake } from '../../storage/intake.ts';
import { CAPTION_MAX } from '../photos/photos.schemas.ts';
import { sniffVideoType, VIDEO_SNIFF_BYTES, type VideoMime } from './videos.sniff.ts';

/** What an upload says about the video besides its bytes; undefined: not given. */
export interface VideoFields {
  caption?: string | null;
  capturedAt?: Date;
  coordinates?: { lat: number; lon: number; altitude: number | null };
}

export interface ReceivedVideo {
  stored: Intake<VideoMime>;
  fields: VideoFields;
}

const ACCEPTED = 'an MP4, QuickTime (MOV) or WebM video';
const FORM_FIELDS = new Set(['caption', 'captured_at', 'lat', 'lon', 'altitude']);
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Receives a multipart video upload into the blob store as a stream: the first bytes are
 * sniffed before anything is stored, the rest goes straight through (hashed on the way), so a
 * 1 GB video costs one chunk of memory. On any refusal nothing is left in the store.
 */
export class VideoIntake {
  constructor(private readonly blobs: BlobStore, private readonly config: Config) {}

  /** A multipart/form-data upload: one `file` part plus form fields, in any order. */
  async fromMultipart(req: FastifyRequest): Promise<ReceivedVideo> {
    const maxBytes = this.config.media.videoMaxBytes;
    const raw = new Map<string, string[]>();
    const errors: FieldError[] = [];
    let stored: Intake<VideoMime> | null = null;
    try {
      const parts = req.parts({
        limits: { fileSize: maxBytes + 1, files: 1, fields: 20, fieldSize: 16 * 1024, parts: 21, headerPairs: 100 },
      });
      for await (const part of parts) {
        if (part.type === 'file') {
          if (part.fieldname !== 'file') {
            part.file.resume();
            errors.push({ path: `body.${part.fieldname}`, message: 'unknown file field; send the video as `file`' });
            continue;
          }
          stored = await intake<VideoMime>(this.blobs, part.file, {
            kind: 'videos', maxBytes, headBytes: VIDEO_SNIFF_BYTES, sniff: sniffVideoType, accepted: ACCEPTED,
          });
        } else if (!FORM_FIELDS.has(part.fieldname)) {
          errors.push({ path: `body.${part.fieldname}`, message: 'unknown field' });
        } else {
          raw.set(part.fieldname, [...(raw.get(part.fieldname) ?? []), String(part.value)]);
        }
      }
      if (!stored) {
        if (errors.length) validationFailed(errors);
        throw new ApiError(400, 'missing_file', 'Missing file', 'A multipart upload needs the video in a part named `file`.');
      }
      const fields = parseFormFields(raw, errors);
      if (errors.length) validationFailed(errors);
      return { stored, fields };
    } catch (err) {
      if (stored) await this.blobs.delete(stored.key).catch(() => undefined);
      throw translateMultipartError(err, maxBytes);
    }
  }
}

/** Multipart fields arrive as text; they get the checks the JSON schema would give, with the same paths. */
function parseFormFields(raw: Map<string, string[]>, errors: FieldError[]): VideoFields {
  const fields: VideoFields = {};
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
  return fields;
}

/** @fastify/multipart's limit errors as our problems. */
function translateMultipartError(err: unknown, maxBytes: number): unknown {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new ApiError(413, 'payload_too_large', 'Payload too large', `The file is larger than the limit of ${formatBytes(maxBytes)}.`);
  if (code === 'FST_FILES_LIMIT') return badRequest('bad_request', 'Send one video per request, in the part named `file`.');
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return badRequest('bad_request', 'The form has too many fields.');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_MULTIPART_INVALID_CONTENT_TYPE') {
    return badRequest('bad_request', 'The multipart body is malformed (missing or wrong boundary).');
  }
  if (err instanceof Error && /Unexpected end of (form|multipart)|Malformed part header|boundary/i.test(err.message)) {
    return badRequest('bad_request', `The multipart body is malformed: ${err.message}`);
  }
  return err;
}
