import { Readable } from 'node:stream';
import type { JobHelpers, TaskList } from 'graphile-worker';
import yazl from 'yazl';
import { enqueue } from '../../jobs/enqueue.ts';
import type { JobDeps } from '../../jobs/job-deps.ts';
import { isOutage } from '../../jobs/outages.ts';
import type { LostWork } from '../../jobs/requeue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { timeZoneAt } from '../../time-zones.ts';
import { ExportContentRepository } from './export-content.repository.ts';
import { csvManifest, jsonManifest, type ExportEntry } from './export-manifests.ts';
import { EntryNames, MANIFEST_CSV, MANIFEST_JSON, photoEntryName } from './export-names.ts';
import { ExportsRepository, type ExportRow } from './exports.repository.ts';
import { EXPORT_ATTEMPTS, exportSigner, toExportView, WRITE_EXPORT } from './exports.views.ts';

/** A reason the export cannot be written that another try would not change (an original missing from storage). */
export class ExportWriteError extends Error {}

/** How often a long run marks its row as alive, so the lost-job sweep leaves it alone. */
const HEARTBEAT_MS = 60_000;

export function exportTasks(deps: JobDeps): TaskList {
  const jobs = new ExportJobs(deps);
  return {
    [WRITE_EXPORT]: async (payload, helpers) => jobs.write(String((payload as { export_id: string }).export_id), helpers),
  };
}

/** An export still waiting half an hour after it was asked for (or silent that long while processing) has lost its job. */
export const lostExportJobs: LostWork = {
  name: 'exports',
  staleAfterMs: 30 * 60_000,
  stale: async (db, olderThan, limit) => (await new ExportsRepository().stale(db, olderThan, limit)).map((r) => r.id),
  queue: (db, id) => enqueue(db, WRITE_EXPORT, { export_id: id }, { jobKey: `export:${id}`, jobKeyMode: 'preserve_run_at', maxAttempts: EXPORT_ATTEMPTS }),
};

interface Written {
  key: string;
  byteSize: number;
  photoCount: number;
}

/**
 * Writes a queued export: one ZIP streamed into the blob store — the manifests first, then each
 * original read from the store as a stream and stored as it is (JPEG, PNG, HEIC and WebP do not
 * compress further) — so memory does not grow with the photos' bytes. Then `finished` and
 * export.finished; or `failed` with the reason and export.failed. Safe to run twice: each run
 * writes a ZIP of its own, and only the run that finds the export still `processing` records it.
 * A missing original fails at once; other errors are retried, the last attempt fails the export.
 */
export class ExportJobs {
  private readonly exports = new ExportsRepository();
  private readonly content = new ExportContentRepository();
  private readonly signForEvents;

  constructor(private readonly deps: JobDeps) {
    this.signForEvents = exportSigner(deps.blobs, deps.config, 'event');
  }

  private get retentionDays(): number {
    return this.deps.config.media.exportRetentionDays;
  }

  private get blobs(): BlobStore {
    return this.deps.blobs;
  }

  async write(exportId: string, helpers: Pick<JobHelpers, 'job' | 'logger'>): Promise<void> {
    const { db, events } = this.deps;
    const row = await this.exports.claim(db, exportId);
    if (!row) return; // finished, failed or deleted already
    let written: Written;
    const heartbeat = setInterval(() => void this.exports.touch(db, exportId).catch(() => undefined), HEARTBEAT_MS);
    try {
      written = await this.writeZip(row);
    } catch (err) {
      const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
      // An outage is not the photos' fault: retried until the store and database are back (jobs/outages.ts).
      if (isOutage(err) || (!(err instanceof ExportWriteError) && !lastAttempt)) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      const error = err instanceof ExportWriteError ? reason : `writing the ZIP failed after ${helpers.job.attempts} attempts: ${reason}`;
      helpers.logger.error(`export ${exportId}: ${error}`);
      await db.transaction().execute(async (tx) => {
        const failed = await this.exports.fail(tx, exportId, error);
        if (!failed) return;
        await events.emit(tx, { workspaceId: failed.workspace_id, event: 'export.failed', projectId: failed.project_id, data: await toExportView(failed, this.signForEvents, this.retentionDays) });
      });
      return;
    } finally {
      clearInterval(heartbeat);
    }
    const recorded = await db.transaction().execute(async (tx) => {
      const done = await this.exports.finish(tx, exportId, { blobKey: written.key, byteSize: written.byteSize, photoCount: written.photoCount });
      if (!done) return false; // deleted meanwhile, or another run finished first
      await events.emit(tx, { workspaceId: done.workspace_id, event: 'export.finished', projectId: done.project_id, data: await toExportView(done, this.signForEvents, this.retentionDays) });
      return true;
    });
    if (!recorded) await this.blobs.delete(written.key);
  }

  /** Names every photo, then streams the ZIP into a new blob; all or nothing (a failed write leaves no blob). */
  private async writeZip(row: ExportRow): Promise<Written> {
    const { db } = this.deps;
    const project = await this.content.project(db, row.project_id);
    if (!project) throw new ExportWriteError('the project no longer exists');
    const photos = await this.content.photos(db, row.project_id, row.selection);
    // Names in each photo's own zone (where it was taken), as reports print them; else the project's.
    const projectZone = (project.coordinates ? timeZoneAt(project.coordinates.lat, project.coordinates.lon) : null) ?? project.workspaceTimeZone;
    const names = new EntryNames();
    const entries: ExportEntry[] = photos.map((photo) => {
      const zone = photo.capturedAtTimeZone ?? projectZone;
      const { base, extension } = photoEntryName(photo, zone);
      return { photo, zone, file: names.claim(base, extension) };
    });

    const zip = new yazl.ZipFile();
    const key = this.blobs.newKey('exports');
    let failure: unknown = null;
    /** The original being copied: closed if the ZIP fails half-way through it. */
    let source: Readable | null = null;
    // Ending the output with the first failure makes put() fail and leave nothing behind.
    const abort = (err: unknown) => {
      failure ??= err;
      zip.outputStream.destroy(err instanceof Error ? err : new Error(String(err)));
    };
    // yazl reports a missing source (the callback's error) on the ZipFile, but not a source stream that breaks: that is ours to catch.
    zip.on('error', abort);
    // Once put() has failed nobody listens to the output, and a late write to it must not crash the worker.
    zip.outputStream.on('error', () => undefined);
    const stored = this.blobs.put(key, zip.outputStream, { contentType: 'application/zip' });
    const now = new Date();
    const header = { exportId: row.id, project: { id: row.project_id, name: project.name }, requestedAt: row.created_at, generatedAt: now };
    zip.addReadStreamLazy(MANIFEST_CSV, { mtime: now }, (cb) => cb(null, Readable.from(csvManifest(entries))));
    zip.addReadStreamLazy(MANIFEST_JSON, { mtime: now }, (cb) => cb(null, Readable.from(jsonManifest(header, entries))));
    for (const { photo, file } of entries) {
      // Opened only when yazl reaches the entry: one original open at a time.
      zip.addReadStreamLazy(file, { mtime: photo.capturedAt, compress: false, size: photo.byteSize }, (cb) => {
        this.blobs.get(photo.blobKey).then(
          (object) => {
            if (!object) return cb(new ExportWriteError(`the original of photo ${photo.id} is missing from storage`));
            source = object.stream;
            object.stream.on('error', abort);
            cb(null, object.stream);
          },
          (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
        );
      });
    }
    zip.end();
    try {
      const { byteSize } = await stored;
      if (failure) throw failure;
      return { key, byteSize, photoCount: entries.length };
    } catch (err) {
      (source as Readable | null)?.destroy();
      await this.blobs.delete(key).catch(() => undefined);
      throw failure ?? err;
    }
  }
}
