import type { Config } from '../../config.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { ReportRow } from './reports.repository.ts';
import type { ReportView } from './reports.schemas.ts';

export type { ReportView };

export const RENDER_REPORT = 'render_report';

/** URLs inside events live longer than those in responses: a delivery may be retried for hours. */
const EVENT_URL_TTL_SECONDS = 24 * 3600;

/** Signs a finished report's PDF into an expiring URL that downloads as `<title>.pdf`. */
export type SignReport = (row: ReportRow) => Promise<string | null>;

export function reportFilename(title: string): string {
  const name = title.replace(/[\x00-\x1f\x7f/\\]/g, ' ').trim().slice(0, 200) || 'report';
  return `${name}.pdf`;
}

export function reportSigner(blobs: BlobStore, config: Config, use: 'response' | 'event'): SignReport {
  const ttl = use === 'event' ? Math.max(config.media.urlTtlSeconds, EVENT_URL_TTL_SECONDS) : config.media.urlTtlSeconds;
  return async (row) => row.status !== 'finished' || row.blob_key === null ? null
    : blobs.signedUrl(row.blob_key, { expiresInSeconds: ttl, filename: reportFilename(row.title), contentType: 'application/pdf' });
}

/** A report as the API returns it (and as its events carry it). */
export async function toReportView(r: ReportRow, sign: SignReport): Promise<ReportView> {
  return {
    id: r.id,
    project_id: r.project_id,
    title: r.title,
    status: r.status,
    error: r.error,
    // Rebuilt in the schema's order: jsonb hands keys back in its own (shortest first), and sync
    // writes views with JSON.stringify, so the bytes must already be those the GET serializes.
    options: {
      layout: r.options.layout,
      time_zone: r.options.time_zone,
      page_size: r.options.page_size,
      include_annotations: r.options.include_annotations,
      include_tasks: r.options.include_tasks,
      include_comments: r.options.include_comments,
    },
    selection: {
      photo_ids: r.selection.photo_ids,
      captured_after: r.selection.captured_after,
      captured_before: r.selection.captured_before,
      tag_ids: r.selection.tag_ids,
    },
    photo_count: r.photo_count,
    page_count: r.page_count,
    byte_size: r.byte_size,
    url: await sign(r),
    requested_by: r.requested_by,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}
