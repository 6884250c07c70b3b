/**
 * Photo exports (ZIP) through the public API (src/features/exports): `POST
 * /v1/projects/{id}/exports` (202, queued), `GET /v1/projects/{id}/exports` (newest first, paged),
 * `GET /v1/exports/{id}`, and `GET /v1/exports/{id}/download` (the ZIP, with the session cookie).
 */
import { request, type Page } from '../api.ts';
import type { PhotoSelection } from '../photos/photosApi.ts';

export type ExportStatus = 'queued' | 'processing' | 'finished' | 'failed';

/** An export as the API returns it (exports.schemas.ts `Export`). */
export interface PhotoExport {
  id: string;
  project_id: string;
  status: ExportStatus;
  error: string | null;
  selection: { photo_ids: string[] | null; captured_after: string | null; captured_before: string | null; tag_ids: string[] | null };
  file_name: string;
  photo_count: number | null;
  byte_size: number | null;
  url: string | null;
  requested_by: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** When the server deletes it and its ZIP; null while it runs, or when exports are kept. */
  expires_at: string | null;
}

/** What the form sends: photos by id, or by capture time and tags (the API combines what is given; nothing: every photo). */
export type ExportInput = PhotoSelection;

export const PAGE_SIZE = 20;

const exportPath = (id: string) => `/v1/exports/${encodeURIComponent(id)}`;

export const exportsApi = {
  list: (projectId: string, cursor: string | null) =>
    request<Page<PhotoExport>>('GET', `/v1/projects/${encodeURIComponent(projectId)}/exports`, { query: { limit: PAGE_SIZE, cursor } }),
  get: (id: string) => request<PhotoExport>('GET', exportPath(id)),
  create: (projectId: string, body: ExportInput) => request<PhotoExport>('POST', `/v1/projects/${encodeURIComponent(projectId)}/exports`, { body }),
  /** The ZIP as an attachment (the session cookie is enough: a plain link). */
  downloadHref: (id: string) => `${exportPath(id)}/download`,
};

/** export.create (docs/roles.md): everyone but restricted users, who may still see and download a project's exports. */
export const mayExport = (role: string) => role !== 'restricted';

export const isPending = (e: PhotoExport) => e.status === 'queued' || e.status === 'processing';
