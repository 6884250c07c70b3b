/**
 * Share links through the public API (src/features/share-links): `POST
 * /v1/projects/{id}/share-links` (201), `GET /v1/share-links?project_id=…` (newest first, paged),
 * `DELETE /v1/share-links/{id}` (204; the page answers 410 from then on).
 */
import { request, type Page } from '../api.ts';

export type ShareLinkStatus = 'active' | 'expired' | 'revoked';

/** A share link as the API returns it (share-links.schemas.ts `ShareLink`). */
export interface ShareLink {
  id: string;
  project_id: string;
  /** The public page; null only when the server's signing secret changed since (the link still works for those who have it). */
  url: string | null;
  status: ShareLinkStatus;
  photo_ids: string[];
  report_id: string | null;
  allow_download: boolean;
  expires_at: string | null;
  view_count: number;
  last_viewed_at: string | null;
  created_by: string;
  created_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

/** What is shared: photos by id (page order), or one finished report. */
export type ShareContent = { photo_ids: string[] } | { report_id: string };

export interface ShareLinkInput {
  /** null: until revoked; omitted: the API's default (30 days). */
  expires_at?: string | null;
  allow_download: boolean;
}

export const PAGE_SIZE = 20;

export const shareLinksApi = {
  create: (projectId: string, content: ShareContent, input: ShareLinkInput) =>
    request<ShareLink>('POST', `/v1/projects/${encodeURIComponent(projectId)}/share-links`, { body: { ...content, ...input } }),
  list: (projectId: string, status: ShareLinkStatus | null, cursor: string | null) =>
    request<Page<ShareLink>>('GET', '/v1/share-links', { query: { project_id: projectId, status, limit: PAGE_SIZE, cursor } }),
  get: (id: string) => request<ShareLink>('GET', `/v1/share-links/${encodeURIComponent(id)}`),
  revoke: (id: string) => request<void>('DELETE', `/v1/share-links/${encodeURIComponent(id)}`),
  reportTitle: async (id: string) => (await request<{ title: string }>('GET', `/v1/reports/${encodeURIComponent(id)}`)).title,
};

/**
 * Anyone who can see a project may share it (share_link.create); turning a link off is for its
 * creator, admins and managers (share_link.revoke, docs/roles.md). The API stays the judge.
 */
export const mayRevokeShareLink = (role: string, userId: string, link: ShareLink) =>
  role === 'admin' || role === 'manager' || link.created_by === userId;
