import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { JobHelpers, TaskList } from 'graphile-worker';
import type { Updateable } from 'kysely';
import sharp from 'sharp';
import type { VideosTable } from '../../db/schema.ts';
import { enqueue } from '../../jobs/enqueue.ts';
import type { JobDeps } from '../../jobs/job-deps.ts';
import type { LostWork } from '../../jobs/requeue.ts';
import { variantKey } from '../../storage/keys.ts';
import { EVENT_URL_TTL_SECONDS } from '../photos/photos.service.ts';
import { urlSignerFor } from '../photos/photos.views.ts';
import { VideoTools, VideoUnreadableError } from './videos.probe.ts';
import { VideosRepository } from './videos.repository.ts';
import type { VideoMime } from './videos.sniff.ts';
import { PROCESS_VIDEO } from './videos.service.ts';
import { toVideoView } from './videos.views.ts';
import { isOutage } from '../../jobs/outages.ts';

/** The poster frame's longest side, in pixels. */
export const POSTER_MAX_SIDE = 1280;

/**
 * The video jobs. The payload carries the id only; the job reads the current row and is safe to
 * run twice: its result is written only while the video is still pending.
 */
export function videoTasks(deps: JobDeps): TaskList {
  const jobs = new VideoJobs(deps);
  return {
    [PROCESS_VIDEO]: async (payload, helpers) => jobs.process(String((payload as { video_id: string }).video_id), helpers),
  };
}

/** A video still pending an hour after upload has lost its processing job: src/jobs/requeue.ts queues it again. */
export const lostVideoJobs: LostWork = {
  name: 'videos',
  staleAfterMs: 60 * 60_000,
  stale: async (db, olderThan, limit) => (await new VideosRepository().stalePending(db, olderThan, limit)).map((r) => r.id),
  queue: (db, id) => enqueue(db, PROCESS_VIDEO, { video_id: id }, { jobKey: `video:${id}`, jobKeyMode: 'preserve_run_at' }),
};

class VideoJobs {
  private readonly videos = new VideosRepository();
  private readonly signForEvents;

  constructor(private readonly deps: JobDeps) {
    this.signForEvents = urlSignerFor(deps.blobs, Math.max(deps.config.media.urlTtlSeconds, EVENT_URL_TTL_SECONDS));
  }

  /**
   * ffprobe (duration, size, codec, creation time and location — unless the client set them)
   * and a poster frame with ffmpeg; then `processed` (or `failed` with the reason) and
   * video.created. Without ffprobe and ffmpeg the video is `processed` with no metadata. A file
   * that is not a readable video fails at once; an infrastructure error (storage, database) is
   * retried by the queue, and the last attempt marks the video failed rather than leave it pending.
   */
  async process(videoId: string, helpers: JobHelpers): Promise<void> {
    const { db } = this.deps;
    const video = await this.videos.getById(db, videoId);
    if (!video || video.processing_status !== 'pending') return;
    let changes: Updateable<VideosTable>;
    try {
      changes = await this.analyse(video.blob_key, video.content_type as VideoMime, video.captured_at_source, video.coordinates_source);
    } catch (err) {
      const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
      // An outage is not the file's fault: retried until the store and database are back (jobs/outages.ts).
      if (isOutage(err) || (!(err instanceof VideoUnreadableError) && !lastAttempt)) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      changes = {
        processing_status: 'failed',
        processing_error: err instanceof VideoUnreadableError ? reason : `processing failed after ${helpers.job.attempts} attempts: ${reason}`,
      };
      helpers.logger.error(`video ${videoId}: ${changes.processing_error}`);
    }
    await db.transaction().execute(async (tx) => {
      const row = await this.videos.finishProcessing(tx, videoId, changes);
      if (!row) return; // deleted meanwhile, or another run finished first
      await this.deps.events.emit(tx, {
        workspaceId: row.workspace_id, event: 'video.created', projectId: row.project_id, data: await toVideoView(row, this.signForEvents),
      });
    });
  }

  private async analyse(key: string, type: VideoMime, timeSource: string, coordinatesSource: string | null): Promise<Updateable<VideosTable>> {
    const done: Updateable<VideosTable> = { processing_status: 'processed', processing_error: null };
    const tools = await VideoTools.locate(this.deps.config.media);
    if (!tools.ffprobe && !tools.ffmpeg) return done;
    // ffprobe and ffmpeg need a seekable file (an MP4's index may sit at its end), and the blob
    // store gives streams: the video is copied to a temporary file, never held in memory.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-video-'));
    try {
      const file = path.join(dir, 'original');
      const original = await this.deps.blobs.get(key);
      if (!original) throw new VideoUnreadableError('the uploaded file is missing from storage');
      await pipeline(original.stream, createWriteStream(file));

      let duration: number | null = null;
      if (tools.ffprobe) {
        const probed = await tools.probe(file, type);
        duration = probed.durationS;
        Object.assign(done, { duration_s: probed.durationS, width: probed.width, height: probed.height, codec: probed.codec });
        if (timeSource !== 'client' && probed.capturedAt) {
          done.captured_at = probed.capturedAt;
          done.captured_at_source = 'metadata';
        }
        if (coordinatesSource !== 'client' && probed.coordinates) {
          done.lat = probed.coordinates.lat;
          done.lon = probed.coordinates.lon;
          done.altitude = probed.coordinates.altitude;
          done.coordinates_source = 'metadata';
        }
      }
      if (tools.ffmpeg) {
        const frame = await tools.poster(file, type, duration, POSTER_MAX_SIDE);
        const { data, info } = await sharp(frame).jpeg({ quality: 82 }).toBuffer({ resolveWithObject: true })
          .catch((err: unknown) => { throw new VideoUnreadableError(`the poster frame could not be encoded: ${(err as Error).message}`); });
        const posterKey = variantKey(key, 'poster');
        await this.deps.blobs.put(posterKey, Readable.from([data]), { contentType: 'image/jpeg' });
        done.variants = JSON.stringify({ poster: { key: posterKey, width: info.width, height: info.height, byte_size: data.length } });
      }
      return done;
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
}
