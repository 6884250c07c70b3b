import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { intake, type Intake } from '../../storage/intake.ts';
import { readMultipartUpload } from '../../storage/multipart-upload.ts';
import { MEDIA_FORM_FIELDS, parseMediaFields, type MediaFields } from '../photos/media.fields.ts';
import { sniffVideoType, VIDEO_SNIFF_BYTES, type VideoMime } from './videos.sniff.ts';

/** What an upload says about the video besides its bytes; undefined: not given. */
export type VideoFields = MediaFields;

export interface ReceivedVideo {
  stored: Intake<VideoMime>;
  fields: VideoFields;
}

const ACCEPTED = 'an MP4, QuickTime (MOV) or WebM video';
const FORM_FIELDS: ReadonlySet<string> = new Set(MEDIA_FORM_FIELDS);

/**
 * Receives a multipart video upload into the blob store as a stream: the first bytes are
 * sniffed before anything is stored, the rest goes straight through (hashed on the way), so a
 * 1 GB video costs one chunk of memory. On any refusal nothing is left in the store.
 */
export class VideoIntake {
  constructor(private readonly blobs: BlobStore, private readonly config: Config) {}

  /** A multipart/form-data upload: one `file` part plus form fields, in any order. */
  fromMultipart(req: FastifyRequest): Promise<ReceivedVideo> {
    const maxBytes = this.config.media.videoMaxBytes;
    return readMultipartUpload(req, this.blobs, {
      what: 'video', maxBytes, fieldNames: FORM_FIELDS,
      receive: (file) => intake<VideoMime>(this.blobs, file, {
        kind: 'videos', maxBytes, headBytes: VIDEO_SNIFF_BYTES, sniff: sniffVideoType, accepted: ACCEPTED,
      }),
      parse: parseMediaFields,
    });
  }
}
