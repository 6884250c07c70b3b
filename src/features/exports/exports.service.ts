import type { Config } from '../../config.ts';
import type { Db, Executor } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import { enqueue } from '../../jobs/enqueue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { FileRequest, FileResponse, FilesService } from '../../storage/files.service.ts';
import { BlobGarbage } from '../../storage/garbage.ts';
import { assertMay } from '../access/permissions.ts';
import { ProjectAccess } from '../projects/projects.access.ts';
import { assertSelectable, selectionOf } from '../reports/reports.service.ts';
import { ExportContentRepository } from './export-content.repository.ts';
import { exportFileName } from './export-names.ts';
import { ExportsRepository, type ExportRow } from './exports.repository.ts';
import type { ExportCreateInput, ExportListFilters } from './exports.schemas.ts';
import { EXPORT_ATTEMPTS, exportSigner, toExportView, WRITE_EXPORT, type ExportView, type SignExport } from './exports.views.ts';

/**
 * ZIP exports of a project's originals: a request is recorded as `queued` with its `write_export`
 * job in one transaction (exports.jobs.ts writes the ZIP). Asking for one needs the
 * `export.create` permission on a project the caller can see; reading, downloading and deleting
 * follow the project (a project the caller cannot see is a 404), and deleting someone else's
 * export needs `export.delete`. The selection is that of reports (reports.service.ts).
 */
export class ExportsService {
  private readonly exports = new ExportsRepository();
  private readonly content = new ExportContentRepository();
  private readonly access = new ProjectAccess();
  private readonly garbage: BlobGarbage;
  private readonly sign: SignExport;
  private readonly retentionDays: number;

  constructor(private readonly db: Db, blobs: BlobStore, private readonly files: FilesService, config: Config) {
    this.sign = exportSigner(blobs, config, 'response');
    this.retentionDays = config.media.exportRetentionDays;
    this.garbage = new BlobGarbage(blobs);
  }

  async create(actor: Actor, projectId: string, input: ExportCreateInput): Promise<ExportView> {
    const selection = selectionOf(input);
    const row = await this.db.transaction().execute(async (tx) => {
      const project = await this.access.requireProject(tx, actor, projectId, 'view', 'share');
      assertMay(actor, 'export.create');
      await assertSelectable(tx, actor.workspaceId, project.id, selection);
      const { name } = (await this.content.project(tx, project.id))!;
      const now = new Date();
      const inserted = await this.exports.insert(tx, {
        id: newId('export'),
        workspace_id: actor.workspaceId,
        project_id: project.id,
        selection: JSON.stringify(selection),
        file_name: exportFileName(name, now),
        requested_by: actor.userId,
        created_at: now,
        updated_at: now,
      });
      await enqueue(tx, WRITE_EXPORT, { export_id: inserted.id }, { jobKey: `export:${inserted.id}`, maxAttempts: EXPORT_ATTEMPTS });
      return inserted;
    });
    return toExportView(row, this.sign, this.retentionDays);
  }

  async list(actor: Actor, projectId: string, filters: ExportListFilters & { limit: number }): Promise<PageOf<ExportView>> {
    const project = await this.access.requireProject(this.db, actor, projectId, 'view');
    const after = decodeCursor(filters.cursor, 'id', 1, ([id]) => typeof id === 'string');
    const rows = await this.exports.list(this.db, {
      workspaceId: actor.workspaceId, projectId: project.id, status: filters.status, afterId: after ? String(after[0]) : null, limit: filters.limit,
    });
    const page = toPage(rows, filters.limit, 'id', (r) => [r.id], (r) => r);
    return { ...page, data: await Promise.all(page.data.map((r) => toExportView(r, this.sign, this.retentionDays))) };
  }

  async get(actor: Actor, id: string): Promise<ExportView> {
    return toExportView(await this.export(this.db, actor, id), this.sign, this.retentionDays);
  }

  /** The ZIP's bytes (ranges, so a broken download resumes; HEAD; validators), once finished; 409 `export_not_ready` before. */
  async download(actor: Actor, id: string, req: FileRequest): Promise<FileResponse> {
    const row = await this.export(this.db, actor, id);
    if (row.status !== 'finished' || row.blob_key === null) {
      conflict('export_not_ready', row.status === 'failed'
        ? `Export ${row.id} failed and has no ZIP: ${row.error ?? 'unknown reason'}.`
        : `Export ${row.id} is ${row.status}; download it once its status is "finished".`);
    }
    return this.files.serveObject(row.blob_key!, {
      cacheControl: 'private, no-cache', disposition: 'attachment', filename: row.file_name, contentType: 'application/zip',
    }, req);
  }

  /** Deletes the export and its ZIP (a run still writing discards its result). */
  async remove(actor: Actor, id: string): Promise<void> {
    const key = await this.db.transaction().execute(async (tx) => {
      const row = await this.export(tx, actor, id, true);
      assertMay(actor, 'export.delete', row.requested_by);
      await this.exports.delete(tx, row.id); // the trigger records the ZIP in blob_garbage
      if (row.blob_key) await BlobGarbage.queueCollection(tx);
      return row.blob_key;
    });
    // Right away, so the URL stops working with the response; the job retries what fails here.
    if (key) await this.garbage.collect(this.db, [key]).catch(() => undefined);
  }

  /** The export when the actor can see its project; 404 otherwise (as for a missing one). */
  private async export(db: Executor, actor: Actor, id: string, lock = false): Promise<ExportRow> {
    const row = isId('export', id) ? await this.exports.get(db, actor.workspaceId, id, lock) : undefined;
    if (!row) return notFound('export', id);
    await this.access.requireProjectOf(db, actor, row.project_id, { kind: 'export', id });
    return row;
  }
}

/**
 * The hourly retention task: deletes the exports that ended more than JOBSITE_EXPORT_RETENTION_DAYS
 * ago (their `expires_at` passed), then their ZIPs (what fails there, the garbage job retries).
 * Nothing when exports are kept until deleted (0). Returns how many went.
 */
export async function purgeExpiredExports(db: Db, blobs: BlobStore, retentionDays: number, now = new Date()): Promise<number> {
  if (retentionDays <= 0) return 0;
  const deleted = await db.transaction().execute(async (tx) => {
    const rows = await new ExportsRepository().deleteEndedBefore(tx, new Date(now.getTime() - retentionDays * 86_400_000));
    if (rows.some((r) => r.blob_key)) await BlobGarbage.queueCollection(tx);
    return rows;
  });
  const keys = deleted.flatMap((r) => (r.blob_key ? [r.blob_key] : []));
  if (keys.length > 0) await new BlobGarbage(blobs).collect(db, keys).catch(() => undefined);
  return deleted.length;
}
