import { Readable } from 'node:stream';
import type { JobHelpers, TaskList } from 'graphile-worker';
import type { Updateable } from 'kysely';
import type { PhotosTable, StoredVariant } from '../../db/schema.ts';
import { enqueue } from '../../jobs/enqueue.ts';
import type { JobDeps } from '../../jobs/job-deps.ts';
import type { LostWork } from '../../jobs/requeue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { variantKey } from '../../storage/keys.ts';
import type { AnnotationShape } from './photos.annotations.ts';
import { makeVariants, MediaError, readExif, renderAnnotated, type ExifCaptureTime, type Variant } from './photos.media.ts';
import { PhotosRepository } from './photos.repository.ts';
import { emitAssigned, EVENT_URL_TTL_SECONDS, PROCESS_PHOTO, RENDER_ANNOTATIONS } from './photos.service.ts';
import { PhotoFiling, type Filing } from './photos.filing.ts';
import type { Executor } from '../../db/database.ts';
import { captureTimeOf, placeTimeZone } from './photos.times.ts';
import { toPhotoView, urlSignerFor, type PhotoRow } from './photos.views.ts';
import { isOutage } from '../../jobs/outages.ts';

export const VARIANT_SIZES = { large: 2048, thumbnail: 320 } as const;
export const REREAD_LEGACY_PHOTO_TIMES = 'reread_legacy_photo_times';
/** Photos whose EXIF time is read again per run (each original is read whole once). */
const REREAD_BATCH = 100;

/**
 * The photo jobs. Payloads carry ids only; each job reads the current row and is safe to run
 * twice: processing writes its result only while the photo is still pending, and a render only
 * for the annotations version it was queued for.
 */
export function photoTasks(deps: JobDeps): TaskList {
  const jobs = new PhotoJobs(deps);
  return {
    [PROCESS_PHOTO]: async (payload, helpers) => jobs.process(String((payload as { photo_id: string }).photo_id), helpers),
    [RENDER_ANNOTATIONS]: async (payload) => {
      const { photo_id, version } = payload as { photo_id: string; version: number };
      await jobs.renderAnnotations(String(photo_id), Number(version));
    },
    [REREAD_LEGACY_PHOTO_TIMES]: async () => jobs.rereadLegacyTimes(),
  };
}

/** Photos processed before capture times had zones: their EXIF time is read again, 100 per run. */
export const PHOTO_CRONTAB = `*/10 * * * * ${REREAD_LEGACY_PHOTO_TIMES}\n`;

/** A photo still pending half an hour after upload has lost its processing job: src/jobs/requeue.ts queues it again. */
export const lostPhotoJobs: LostWork = {
  name: 'photos',
  staleAfterMs: 30 * 60_000,
  stale: async (db, olderThan, limit) => (await new PhotosRepository().stalePending(db, olderThan, limit)).map((r) => r.id),
  queue: (db, id) => enqueue(db, PROCESS_PHOTO, { photo_id: id }, { jobKey: `photo:${id}`, jobKeyMode: 'preserve_run_at' }),
};

const stored = (key: string, v: Variant): StoredVariant => ({ key, width: v.width, height: v.height, byte_size: v.data.length });

class PhotoJobs {
  private readonly photos = new PhotosRepository();
  private readonly signForEvents;
  private readonly filing: PhotoFiling;

  constructor(private readonly deps: JobDeps) {
    this.signForEvents = urlSignerFor(deps.blobs, Math.max(deps.config.media.urlTtlSeconds, EVENT_URL_TTL_SECONDS));
    this.filing = new PhotoFiling(deps.config.media.autoAssignMeters);
  }

  private get blobs(): BlobStore {
    return this.deps.blobs;
  }

  /**
   * EXIF (time read in the zone of where the photo was taken, GPS, orientation — unless the
   * client set them), the photo's time zone, the `large` and `thumbnail` variants, the displayed size; then `processed` (or `failed` with the reason) and
   * photo.created; an unfiled photo with a position is filed in the same transaction
   * (photos.filing.ts), with photo.assigned. A file that is not a usable image fails at once; an infrastructure error
   * (storage, database) is retried by the queue, and the last attempt marks the photo failed
   * rather than leave it pending.
   */
  async process(photoId: string, helpers: JobHelpers): Promise<void> {
    const { db } = this.deps;
    const photo = await this.photos.getById(db, photoId);
    if (!photo || photo.processing_status !== 'pending') return;
    let changes: Updateable<PhotosTable>;
    try {
      changes = await this.makeVariants(photo);
    } catch (err) {
      const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
      // An outage is not the file's fault: retried until the store and database are back (jobs/outages.ts).
      if (isOutage(err) || (!(err instanceof MediaError) && !lastAttempt)) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      changes = {
        processing_status: 'failed',
        processing_error: err instanceof MediaError ? reason : `processing failed after ${helpers.job.attempts} attempts: ${reason}`,
      };
      helpers.logger.error(`photo ${photoId}: ${changes.processing_error}`);
    }
    await db.transaction().execute(async (tx) => {
      // Locked: a move (PATCH project_id) in the meantime is seen here, and one after waits for the filing.
      const current = await this.photos.getById(tx, photoId, true);
      if (!current || current.processing_status !== 'pending') return; // deleted meanwhile, or another run finished first
      const filing = current.project_id === null ? await this.fileByPosition(tx, current, changes) : null;
      const row = await this.photos.finishProcessing(tx, photoId, filing ? { ...changes, project_id: filing.projectId } : changes);
      if (!row) return;
      await this.deps.events.emit(tx, {
        workspaceId: row.workspace_id, event: 'photo.created', projectId: row.project_id, data: await toPhotoView(row, this.signForEvents),
      });
      if (filing) await emitAssigned(this.deps.events, tx, row, { previousProjectId: null, by: filing.by, userId: null }, this.signForEvents);
      if (row.processing_status === 'processed' && row.annotations.length > 0) {
        await enqueue(tx, RENDER_ANNOTATIONS, { photo_id: row.id, version: row.annotations_version }, { jobKey: `annotate:${row.id}` });
      }
    });
  }

  /** An unfiled photo's project by its position, the client's or the EXIF GPS just read (none without one: it stays unfiled). */
  private async fileByPosition(tx: Executor, photo: PhotoRow, changes: Updateable<PhotosTable>): Promise<Filing | null> {
    const lat = changes.lat === undefined ? photo.lat : changes.lat as number | null;
    const lon = changes.lon === undefined ? photo.lon : changes.lon as number | null;
    if (lat === null || lon === null) return null;
    return this.filing.projectFor(tx, photo, { lat, lon });
  }

  private async makeVariants(photo: PhotoRow): Promise<Updateable<PhotosTable>> {
    const key = photo.blob_key;
    const bytes = await this.blobs.read(key);
    if (!bytes) throw new MediaError('processing_failed', 'the uploaded file is missing from storage');
    const [exif, result] = await Promise.all([
      readExif(bytes),
      makeVariants(bytes, VARIANT_SIZES, { maxPixels: this.deps.config.media.photoMaxPixels }),
    ]);
    // Both variants at once: each put waits on its own fsyncs, which need not queue behind each other.
    const variants = Object.fromEntries(await Promise.all((Object.entries(result.variants) as [string, Variant][]).map(async ([name, variant]) => {
      const vkey = variantKey(key, name);
      await this.blobs.put(vkey, Readable.from([variant.data]), { contentType: variant.contentType });
      return [name, stored(vkey, variant)] as const;
    }))) as Record<string, StoredVariant>;
    const changes: Updateable<PhotosTable> = {
      width: result.width,
      height: result.height,
      orientation: exif.orientation,
      variants: JSON.stringify(variants),
      processing_status: 'processed',
      processing_error: null,
    };
    if (photo.coordinates_source !== 'client' && exif.coordinates) {
      changes.lat = exif.coordinates.lat;
      changes.lon = exif.coordinates.lon;
      changes.altitude = exif.altitude;
      changes.coordinates_source = 'exif';
    }
    const lat = changes.lat ?? photo.lat;
    const lon = changes.lon ?? photo.lon;
    return { ...changes, ...await this.timeChanges(photo, exif.captureTime, lat == null || lon == null ? null : { lat, lon }) };
  }

  /**
   * The time columns from EXIF (docs/photos.md, "Capture time"): the zone of where the photo was
   * taken — its position, else the project's, else the workspace's — and an EXIF time read in it,
   * unless the client gave the time.
   */
  private async timeChanges(photo: PhotoRow, captureTime: ExifCaptureTime | null, position: { lat: number; lon: number } | null) {
    const place = { photo: position, ...await this.photos.placeFallbacks(this.deps.db, photo.workspace_id, photo.project_id) };
    if (photo.captured_at_source === 'client' || !captureTime) return { captured_at_time_zone: placeTimeZone(place) };
    const time = captureTimeOf(captureTime, place);
    return { captured_at: time.capturedAt, captured_at_source: time.source, captured_at_time_zone: time.timeZone };
  }

  /**
   * Photos processed before migration 014 (source `exif`, no zone) had an offset-less EXIF time
   * taken as UTC: their EXIF is read again under today's rules, a batch per run, with
   * photo.updated for each. One whose EXIF can no longer be read keeps `exif` and gets its zone.
   */
  async rereadLegacyTimes(): Promise<void> {
    const { db } = this.deps;
    for (const { id } of await this.photos.legacyExifTimes(db, REREAD_BATCH)) {
      const photo = await this.photos.getById(db, id);
      if (!photo || photo.captured_at_source !== 'exif' || photo.captured_at_time_zone !== null) continue;
      const bytes = await this.blobs.read(photo.blob_key);
      const exif = bytes ? await readExif(bytes) : null;
      const position = photo.lat === null || photo.lon === null ? null : { lat: photo.lat, lon: photo.lon };
      const changes = await this.timeChanges(photo, exif?.captureTime ?? null, position);
      await db.transaction().execute(async (tx) => {
        const current = await this.photos.getById(tx, id, true);
        if (!current || current.captured_at_source !== 'exif' || current.captured_at_time_zone !== null) return; // changed meanwhile
        const row = await this.photos.update(tx, id, changes);
        await this.deps.events.emit(tx, {
          workspaceId: row.workspace_id, event: 'photo.updated', projectId: row.project_id, data: await toPhotoView(row, this.signForEvents),
        });
      });
    }
  }

  /**
   * Draws the annotations over the `large` variant into `annotated-<version>`, records it if the
   * annotations are still that version, and emits photo.updated; the previous render is deleted.
   */
  async renderAnnotations(photoId: string, version: number): Promise<void> {
    const { db } = this.deps;
    const photo = await this.photos.getById(db, photoId);
    if (!photo || photo.annotations_version !== version || photo.processing_status !== 'processed') return;
    const shapes = photo.annotations as AnnotationShape[];
    if (shapes.length === 0) return;
    const source = photo.variants.large?.key ?? photo.blob_key;
    const input = await this.blobs.read(source);
    if (!input) return; // deleted meanwhile
    const rendered = await renderAnnotated(input, shapes, { maxPixels: this.deps.config.media.photoMaxPixels });
    const key = variantKey(photo.blob_key, `annotated-${version}`);
    await this.blobs.put(key, Readable.from([rendered.data]), { contentType: rendered.contentType });
    const previous = await db.transaction().execute(async (tx) => {
      const current = await this.photos.getById(tx, photoId, true);
      if (!current || current.annotations_version !== version) return key; // superseded: drop this render
      const old = current.variants.annotated?.key ?? null;
      const row = await this.photos.update(tx, photoId, { variants: JSON.stringify({ ...current.variants, annotated: stored(key, rendered) }) });
      await this.deps.events.emit(tx, {
        workspaceId: row.workspace_id, event: 'photo.updated', projectId: row.project_id, data: await toPhotoView(row, this.signForEvents),
      });
      return old !== key ? old : null;
    });
    if (previous) await this.blobs.delete(previous);
  }
}
