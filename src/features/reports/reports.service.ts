import type { Config } from '../../config.ts';
import type { Db, Executor } from '../../db/database.ts';
import type { ReportOptions, ReportSelection } from '../../db/schema.ts';
import type { Actor } from '../../http/actor.ts';
import { conflict, notFound, unprocessable, validationFailed } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { parseRfc3339 } from '../../http/timestamps.ts';
import { isId, newId } from '../../ids.ts';
import { canonicalTimeZone } from '../../time-zones.ts';
import { enqueue } from '../../jobs/enqueue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { FileRequest, FileResponse, FilesService } from '../../storage/files.service.ts';
import { BlobGarbage } from '../../storage/garbage.ts';
import { assertMay } from '../access/permissions.ts';
import { ProjectAccess } from '../projects/projects.access.ts';
import { ReportContentRepository } from './report-content.repository.ts';
import { ReportsRepository, type ReportRow } from './reports.repository.ts';
import type { ReportCreateInput, ReportListFilters } from './reports.schemas.ts';
import { RENDER_REPORT, reportFilename, reportSigner, toReportView, type ReportView, type SignReport } from './reports.views.ts';

/** Tries of the render job before the report is marked failed. */
const RENDER_ATTEMPTS = 3;

/**
 * PDF photo reports: a request is recorded as `queued` with its `render_report` job in one
 * transaction (reports.jobs.ts renders it); reading, downloading and deleting follow the project
 * (projects.access.ts: a project the caller cannot see is a 404), and deleting someone else's
 * report needs the `report.delete` permission.
 */
export class ReportsService {
  private readonly reports = new ReportsRepository();
  private readonly access = new ProjectAccess();
  private readonly garbage: BlobGarbage;
  private readonly sign: SignReport;

  constructor(private readonly db: Db, blobs: BlobStore, private readonly files: FilesService, config: Config) {
    this.sign = reportSigner(blobs, config, 'response');
    this.garbage = new BlobGarbage(blobs);
  }

  async create(actor: Actor, projectId: string, input: ReportCreateInput): Promise<ReportView> {
    const options = optionsOf(input.options);
    const selection = selectionOf(input);
    const row = await this.db.transaction().execute(async (tx) => {
      const project = await this.access.requireProject(tx, actor, projectId, 'contribute', 'share');
      await assertSelectable(tx, actor.workspaceId, project.id, selection);
      const now = new Date();
      const inserted = await this.reports.insert(tx, {
        id: newId('report'),
        workspace_id: actor.workspaceId,
        project_id: project.id,
        title: input.title,
        options: JSON.stringify(options),
        selection: JSON.stringify(selection),
        requested_by: actor.userId,
        created_at: now,
        updated_at: now,
      });
      await enqueue(tx, RENDER_REPORT, { report_id: inserted.id }, { jobKey: `report:${inserted.id}`, maxAttempts: RENDER_ATTEMPTS });
      return inserted;
    });
    return toReportView(row, this.sign);
  }

  async list(actor: Actor, projectId: string, filters: ReportListFilters & { limit: number }): Promise<PageOf<ReportView>> {
    const project = await this.access.requireProject(this.db, actor, projectId, 'view');
    const after = decodeCursor(filters.cursor, 'id', 1, ([id]) => typeof id === 'string');
    const rows = await this.reports.list(this.db, {
      workspaceId: actor.workspaceId, projectId: project.id, status: filters.status, afterId: after ? String(after[0]) : null, limit: filters.limit,
    });
    const page = toPage(rows, filters.limit, 'id', (r) => [r.id], (r) => r);
    return { ...page, data: await Promise.all(page.data.map((r) => toReportView(r, this.sign))) };
  }

  async get(actor: Actor, id: string): Promise<ReportView> {
    return toReportView(await this.report(this.db, actor, id), this.sign);
  }

  /**
   * The reports among `ids` that the caller may see, each as `get` returns it, in no particular
   * order (the others are left out): sync's read of a page, one statement instead of one `get` each.
   */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<ReportView[]> {
    const rows = await this.reports.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('report', id)), this.access.visibleProjectIds(this.db, actor));
    return Promise.all(rows.map((row) => toReportView(row, this.sign)));
  }

  /** The PDF's bytes (ranges, HEAD, validators), once finished; 409 `report_not_ready` before. */
  async download(actor: Actor, id: string, req: FileRequest): Promise<FileResponse> {
    const report = await this.report(this.db, actor, id);
    if (report.status !== 'finished' || report.blob_key === null) {
      conflict('report_not_ready', report.status === 'failed'
        ? `Report ${report.id} failed and has no PDF: ${report.error ?? 'unknown reason'}.`
        : `Report ${report.id} is ${report.status}; download it once its status is "finished".`);
    }
    return this.files.serveObject(report.blob_key!, {
      cacheControl: 'private, no-cache', disposition: 'attachment', filename: reportFilename(report.title), contentType: 'application/pdf',
    }, req);
  }

  /** Deletes the report and its PDF (a render still running discards its result). */
  async remove(actor: Actor, id: string): Promise<void> {
    const key = await this.db.transaction().execute(async (tx) => {
      const row = await this.report(tx, actor, id, true);
      assertMay(actor, 'report.delete', row.requested_by);
      await this.reports.delete(tx, row.id); // the trigger records the PDF in blob_garbage
      if (row.blob_key) await BlobGarbage.queueCollection(tx);
      return row.blob_key;
    });
    // Right away, so the URL stops working with the response; the job retries what fails here.
    if (key) await this.garbage.collect(this.db, [key]).catch(() => undefined);
  }

  /** The report when the actor can see its project; 404 otherwise (as for a missing one). */
  private async report(db: Executor, actor: Actor, id: string, lock = false): Promise<ReportRow> {
    const row = isId('report', id) ? await this.reports.get(db, actor.workspaceId, id, lock) : undefined;
    if (!row) return notFound('report', id);
    await this.access.requireProjectOf(db, actor, row.project_id, { kind: 'report', id });
    return row;
  }
}

function optionsOf(input: ReportCreateInput['options'] = {}): ReportOptions {
  const timeZone = input.time_zone === undefined ? null : canonicalTimeZone(input.time_zone);
  if (timeZone === null && input.time_zone !== undefined) {
    validationFailed([{ path: 'body.options.time_zone', message: 'must be an IANA time zone such as "Europe/Paris" or "UTC"' }]);
  }
  return {
    layout: (input.layout ?? 2) as ReportOptions['layout'],
    time_zone: timeZone,
    page_size: input.page_size ?? 'letter',
    include_annotations: input.include_annotations ?? true,
    include_tasks: input.include_tasks ?? false,
    include_comments: input.include_comments ?? false,
  };
}

/**
 * 422 `photo_not_in_project` unless every `photo_ids` entry is a photo of the project, and
 * `tag_not_found` unless every `tag_ids` entry is a tag of the workspace (reports and exports alike).
 */
export async function assertSelectable(db: Executor, workspaceId: string, projectId: string, selection: ReportSelection): Promise<void> {
  const content = new ReportContentRepository();
  const outside = await content.photosOutside(db, projectId, selection.photo_ids ?? []);
  if (outside.length > 0) {
    unprocessable('photo_not_in_project', `Photo "${outside[0]}" is not a photo of project ${projectId}${outside.length > 1 ? ` (nor are ${outside.length - 1} more)` : ''}.`,
      outside.slice(0, 20).map((id) => ({ path: `body.photo_ids[${selection.photo_ids!.indexOf(id)}]`, message: `${id} is not a photo of this project` })));
  }
  const unknown = await content.unknownTags(db, workspaceId, selection.tag_ids ?? []);
  if (unknown.length > 0) {
    unprocessable('tag_not_found', `No tag "${unknown[0]}" in this workspace.`,
      unknown.slice(0, 20).map((id) => ({ path: `body.tag_ids[${selection.tag_ids!.indexOf(id)}]`, message: 'names no tag of the workspace' })));
  }
}

/** The photo filters of a report or export request, checked (RFC 3339, a range that is not empty) and normalized to UTC. */
export function selectionOf(input: Pick<ReportCreateInput, 'photo_ids' | 'captured_after' | 'captured_before' | 'tag_ids'>): ReportSelection {
  const after = input.captured_after === undefined ? null : parseRfc3339(input.captured_after, 'body.captured_after');
  const before = input.captured_before === undefined ? null : parseRfc3339(input.captured_before, 'body.captured_before');
  if (after && before && after >= before) validationFailed([{ path: 'body.captured_before', message: 'must be later than captured_after' }]);
  return {
    photo_ids: input.photo_ids ?? null,
    captured_after: after?.toISOString() ?? null,
    captured_before: before?.toISOString() ?? null,
    tag_ids: input.tag_ids ?? null,
  };
}
