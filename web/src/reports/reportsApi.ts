/**
 * Photo reports through the public API (src/features/reports): `POST /v1/projects/{id}/reports`
 * (202, queued), `GET /v1/projects/{id}/reports` (newest first, paged), `GET` and `DELETE
 * /v1/reports/{id}`, `GET /v1/reports/{id}/download`; and the workspace's time zone, the form's default.
 */
import { request, type Page } from '../api.ts';
import type { PhotoSelection } from '../photos/photosApi.ts';

export type ReportStatus = 'queued' | 'processing' | 'finished' | 'failed';
export type Layout = 1 | 2 | 4;
export type PageSize = 'letter' | 'a4';

export interface ReportOptions {
  layout: Layout;
  time_zone: string | null;
  page_size: PageSize;
  include_annotations: boolean;
  include_tasks: boolean;
  include_comments: boolean;
}

/** A report as the API returns it (reports.schemas.ts `Report`). */
export interface Report {
  id: string;
  project_id: string;
  title: string;
  status: ReportStatus;
  error: string | null;
  options: ReportOptions;
  selection: { photo_ids: string[] | null; captured_after: string | null; captured_before: string | null; tag_ids: string[] | null };
  photo_count: number | null;
  page_count: number | null;
  byte_size: number | null;
  /** Signed and expiring; opens the PDF in the browser. */
  url: string | null;
  requested_by: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** What the form sends: photos by id, or by capture time and tags (the API combines what is given). */
export interface ReportInput extends PhotoSelection {
  title: string;
  options: Partial<ReportOptions>;
}

/** The API's limit on a title (reports.schemas.ts TITLE_MAX). */
export const TITLE_MAX = 200;
export const PAGE_SIZE = 20;

const reportPath = (id: string) => `/v1/reports/${encodeURIComponent(id)}`;

export const reportsApi = {
  list: (projectId: string, cursor: string | null) =>
    request<Page<Report>>('GET', `/v1/projects/${encodeURIComponent(projectId)}/reports`, { query: { limit: PAGE_SIZE, cursor } }),
  get: (id: string) => request<Report>('GET', reportPath(id)),
  create: (projectId: string, body: ReportInput) => request<Report>('POST', `/v1/projects/${encodeURIComponent(projectId)}/reports`, { body }),
  remove: (id: string) => request<void>('DELETE', reportPath(id)),
  /** The PDF as an attachment (the session cookie is enough: a plain link). */
  downloadHref: (id: string) => `${reportPath(id)}/download`,
  workspaceTimeZone: async () => (await request<{ time_zone: string }>('GET', '/v1/workspace')).time_zone,
};

/** Admins and managers may delete anyone's report; the others only those they asked for (report.delete, docs/roles.md). */
export const mayDeleteReport = (role: string, userId: string, report: Report) =>
  role === 'admin' || role === 'manager' || report.requested_by === userId;

export const isPending = (r: Report) => r.status === 'queued' || r.status === 'processing';
