import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { ApiError } from '../../http/errors.ts';
import { OutboundError, outboundDownload } from '../../http/outbound.ts';
import { parseAllowList } from '../../http/ssrf-guard.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { formatBytes, intake, type Intake } from '../../storage/intake.ts';
import { FormFields, readMultipartUpload } from '../../storage/multipart-upload.ts';
import { MEDIA_FORM_FIELDS, parseMediaFields, type MediaFields } from './media.fields.ts';
import { HEADER_PREFIX_BYTES, MediaError, readImageHeader } from './photos.media.ts';
import { MAX_TAG_IDS, type PhotoImportInput } from './photos.schemas.ts';
import { sniffImageType, type ImageMime } from './photos.sniff.ts';

/** What an upload says about the photo besides its bytes; undefined: not given. */
export interface PhotoFields extends MediaFields {
  tagIds?: string[];
}

export interface ReceivedPhoto {
  stored: Intake<ImageMime>;
  fields: PhotoFields;
  sourceUrl: string | null;
}

const ACCEPTED = 'a JPEG, PNG, HEIC/HEIF or WebP image';
const FORM_FIELDS: ReadonlySet<string> = new Set([...MEDIA_FORM_FIELDS, 'tag_ids']);
const TAG_ID = /^tag_[0-9a-hjkmnp-tv-z]{26}$/;

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
    const { stored, fields } = await readMultipartUpload(req, this.blobs, {
      what: 'photo', maxBytes: this.config.media.photoMaxBytes, fieldNames: FORM_FIELDS,
      receive: (file) => this.receive(file),
      parse: (values, errors) => {
        const parsed: PhotoFields = parseMediaFields(values, errors);
        const ids = new FormFields(values, errors).list('tag_ids');
        if (ids) {
          const bad = ids.find((id) => !TAG_ID.test(id));
          if (bad !== undefined) errors.push({ path: 'body.tag_ids', message: `"${bad.slice(0, 40)}" is not a tag id (tag_…)` });
          else if (ids.length > MAX_TAG_IDS) errors.push({ path: 'body.tag_ids', message: `at most ${MAX_TAG_IDS} tags` });
          else parsed.tagIds = [...new Set(ids)];
        }
        return parsed;
      },
    });
    return { stored, fields, sourceUrl: null };
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
}
