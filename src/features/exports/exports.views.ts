import type { Config } from '../../config.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { ExportRow } from './exports.repository.ts';
import type { ExportView } from './exports.schemas.ts';

export type { ExportView };

export const WRITE_EXPORT = 'write_export';

/** Tries of the job before the export is marked failed. */
export const EXPORT_ATTEMPTS = 3;

/** URLs inside events live longer than those in responses: a delivery may be retried for hours. */
const EVENT_URL_TTL_SECONDS = 24 * 3600;

/** Signs a finished export's ZIP into an expiring URL that downloads as its `file_name`. */
export type SignExport = (row: ExportRow) => Promise<string | null>;

export function exportSigner(blobs: BlobStore, config: Config, use: 'response' | 'event'): SignExport {
  const ttl = use === 'event' ? Math.max(config.media.urlTtlSeconds, EVENT_URL_TTL_SECONDS) : config.media.urlTtlSeconds;
  return async (row) => row.status !== 'finished' || row.blob_key === null ? null
    : blobs.signedUrl(row.blob_key, { expiresInSeconds: ttl, filename: row.file_name, disposition: 'attachment', contentType: 'application/zip' });
}

/** When an export that ended is deleted (JOBSITE_EXPORT_RETENTION_DAYS after); null: not ended, or kept. */
export function exportExpiry(r: Pick<ExportRow, 'finished_at'>, retentionDays: number): Date | null {
  return r.finished_at && retentionDays > 0 ? new Date(r.finished_at.getTime() + retentionDays * 86_400_000) : null;
}

/** An export as the API returns it (and as its events carry it). */
export async function toExportView(r: ExportRow, sign: SignExport, retentionDays: number): Promise<ExportView> {
  return {
    id: r.id,
    project_id: r.project_id,
    status: r.status,
    error: r.error,
    selection: r.selection,
    file_name: r.file_name,
    photo_count: r.photo_count,
    byte_size: r.byte_size,
    url: await sign(r),
    requested_by: r.requested_by,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
    expires_at: exportExpiry(r, retentionDays)?.toISOString() ?? null,
  };
}
