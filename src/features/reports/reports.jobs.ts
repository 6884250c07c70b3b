import type { JobHelpers, TaskList } from 'graphile-worker';
import sharp from 'sharp';
import { enqueue } from '../../jobs/enqueue.ts';
import type { JobDeps } from '../../jobs/job-deps.ts';
import type { LostWork } from '../../jobs/requeue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { timeZoneAt } from '../../time-zones.ts';
import { ReportContentRepository, type ReportPhotoRow } from './report-content.repository.ts';
import { dayKey } from './reports.format.ts';
import { drawReport, newReportDocument, type PrintImage, type PrintPhoto } from './reports.pdf.ts';
import { ReportsRepository, type ReportRow } from './reports.repository.ts';
import { RENDER_REPORT, reportSigner, toReportView } from './reports.views.ts';
import { isOutage } from '../../jobs/outages.ts';

/** A reason the report cannot be rendered that another try would not change (a missing or broken image). */
export class ReportRenderError extends Error {}

/** The PDF may get this far ahead of the store before the renderer waits for it. */
const MAX_UNWRITTEN_BYTES = 4 * 1024 * 1024;

export function reportTasks(deps: JobDeps): TaskList {
  const jobs = new ReportJobs(deps);
  return {
    [RENDER_REPORT]: async (payload, helpers) => jobs.render(String((payload as { report_id: string }).report_id), helpers),
  };
}

/** A report still queued half an hour after it was asked for has lost its render job: src/jobs/requeue.ts queues it again. */
export const lostReportJobs: LostWork = {
  name: 'reports',
  staleAfterMs: 30 * 60_000,
  stale: async (db, olderThan, limit) => (await new ReportsRepository().staleQueued(db, olderThan, limit)).map((r) => r.id),
  queue: (db, id) => enqueue(db, RENDER_REPORT, { report_id: id }, { jobKey: `report:${id}`, jobKeyMode: 'preserve_run_at', maxAttempts: 3 }),
};

interface Rendered {
  key: string;
  byteSize: number;
  pageCount: number;
  photoCount: number;
}

/**
 * Renders a queued report into a PDF in the blob store, then `finished` and report.finished; or
 * `failed` with the reason and report.failed. Safe to run twice: each run writes a PDF of its
 * own, and only the run that finds the report still `processing` records it (another's is deleted).
 * A broken or missing image fails at once; other errors (storage, database) are retried by the
 * queue, and the last attempt fails the report rather than leave it processing.
 */
export class ReportJobs {
  private readonly reports = new ReportsRepository();
  private readonly content = new ReportContentRepository();
  private readonly signForEvents;

  constructor(private readonly deps: JobDeps) {
    this.signForEvents = reportSigner(deps.blobs, deps.config, 'event');
    // libvips' operation cache keeps recent inputs (up to 100 operations) in case the same image
    // is processed again; every image here is new, so it only held ~150 MB of compressed photos
    // in a 100-photo report (bench/RESULTS.md). Process-wide: photo processing never repeats an image either.
    sharp.cache(false);
  }

  private get blobs(): BlobStore {
    return this.deps.blobs;
  }

  async render(reportId: string, helpers: Pick<JobHelpers, 'job' | 'logger'>): Promise<void> {
    const { db, events } = this.deps;
    const report = await this.reports.claim(db, reportId);
    if (!report) return; // finished, failed or deleted already
    let rendered: Rendered;
    try {
      rendered = await this.renderPdf(report);
    } catch (err) {
      const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
      // An outage is not the file's fault: retried until the store and database are back (jobs/outages.ts).
      if (isOutage(err) || (!(err instanceof ReportRenderError) && !lastAttempt)) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      const error = err instanceof ReportRenderError ? reason : `rendering failed after ${helpers.job.attempts} attempts: ${reason}`;
      helpers.logger.error(`report ${reportId}: ${error}`);
      await db.transaction().execute(async (tx) => {
        const row = await this.reports.fail(tx, reportId, error);
        if (!row) return;
        await events.emit(tx, { workspaceId: row.workspace_id, event: 'report.failed', projectId: row.project_id, data: await toReportView(row, this.signForEvents) });
      });
      return;
    }
    const recorded = await db.transaction().execute(async (tx) => {
      const row = await this.reports.finish(tx, reportId, { blobKey: rendered.key, byteSize: rendered.byteSize, pageCount: rendered.pageCount, photoCount: rendered.photoCount });
      if (!row) return false; // deleted meanwhile, or another run finished first
      await events.emit(tx, { workspaceId: row.workspace_id, event: 'report.finished', projectId: row.project_id, data: await toReportView(row, this.signForEvents) });
      return true;
    });
    if (!recorded) await this.blobs.delete(rendered.key);
  }

  /** Reads what the report shows, and streams the PDF into a new blob as it is drawn. */
  private async renderPdf(report: ReportRow): Promise<Rendered> {
    const { db } = this.deps;
    const options = report.options;
    const header = await this.content.header(db, report.project_id);
    if (!header) throw new ReportRenderError('the project no longer exists');
    const rows = await this.content.photos(db, report.project_id, report.selection);
    const printed = (photo: { id: string; variants: ReportPhotoRow['variants'] }): PrintImage => {
      const image = (options.include_annotations ? photo.variants.annotated : undefined) ?? photo.variants.large;
      if (!image) throw new ReportRenderError(`photo ${photo.id} has no large image to print`);
      return { key: image.key, width: image.width, height: image.height };
    };
    // Without a zone asked for, a photo prints in the zone where it was taken, the rest in the project's.
    const projectZone = (header.coordinates ? timeZoneAt(header.coordinates.lat, header.coordinates.lon) : null) ?? header.workspaceTimeZone;
    const timeZone = options.time_zone ?? projectZone;
    const photos: PrintPhoto[] = rows.map((r) => ({ ...r, timeZone: options.time_zone ?? r.capturedAtTimeZone ?? projectZone, image: printed(r) }));
    // Grouped by their local day: with photos from several zones, capture order alone could split a day.
    const days = new Map(photos.map((p) => [p.id, dayKey(p.capturedAt, p.timeZone)]));
    photos.sort((a, b) => days.get(a.id)!.localeCompare(days.get(b.id)!) || a.capturedAt.getTime() - b.capturedAt.getTime() || a.id.localeCompare(b.id));
    const coverPhoto = header.coverPhoto ? { id: header.coverPhoto.id, image: printed(header.coverPhoto) } : null;
    const tasks = options.include_tasks ? await this.content.tasks(db, report.project_id) : null;
    const comments = options.include_comments ? await this.content.comments(db, report.project_id, rows.map((r) => r.id)) : null;
    const requestedBy = await this.content.userName(db, report.requested_by);

    const key = this.blobs.newKey('reports');
    const doc = newReportDocument(report.title, options.page_size);
    // The store may not be reading yet when a failed render destroys the document: its error is handled below.
    doc.on('error', () => undefined);
    let storeError: unknown = null;
    const stored = this.blobs.put(key, doc, { contentType: 'application/pdf' });
    stored.catch((err: unknown) => { storeError = err ?? new Error('storage failed'); });
    const waitForRoom = async () => {
      while (doc.readableLength > MAX_UNWRITTEN_BYTES && storeError === null) await new Promise((r) => setTimeout(r, 2));
      if (storeError !== null) throw storeError;
    };
    try {
      const pageCount = await drawReport(doc, {
        title: report.title, header, requestedBy, options, timeZone, generatedAt: new Date(), photos, tasks, comments, coverPhoto,
      }, (photo, width, height) => this.printedImage(photo, width, height), waitForRoom);
      doc.end();
      const { byteSize } = await stored;
      return { key, byteSize, pageCount, photoCount: photos.length };
    } catch (err) {
      doc.destroy(err instanceof Error ? err : new Error(String(err)));
      await stored.catch(() => undefined);
      await this.blobs.delete(key).catch(() => undefined);
      throw err;
    }
  }

  /** The photo's image, downscaled to the pixels it is printed with (one photo's bytes at a time). */
  private async printedImage(photo: { id: string; image: PrintImage }, width: number, height: number): Promise<Buffer> {
    const bytes = await this.blobs.read(photo.image.key);
    if (!bytes) throw new ReportRenderError(`the image of photo ${photo.id} is missing from storage`);
    try {
      return await sharp(bytes, { failOn: 'error' })
        .resize({ width, height, fit: 'inside', withoutEnlargement: true })
        .jpeg({ quality: 78, chromaSubsampling: '4:2:0' })
        .toBuffer();
    } catch (err) {
      throw new ReportRenderError(`the image of photo ${photo.id} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
