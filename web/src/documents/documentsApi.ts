/**
 * A project's documents through the public API: the list, one document with its ETag, renames with
 * If-Match, deletes, and uploads through postFile (XMLHttpRequest, for their progress).
 */
import { request, requestWithEtag, type Page, type User } from '../api.ts';
import { postFile, type UploadOptions } from '../uploads/postFile.ts';

/** GET /v1/documents/{id}. */
export interface ProjectDocument {
  id: string;
  project_id: string;
  name: string;
  content_type: string;
  byte_size: number;
  sha256: string;
  uploaded_by: string;
  created_at: string;
  updated_at: string;
}

export const PAGE_SIZE = 50;

const one = (id: string) => `/v1/documents/${encodeURIComponent(id)}`;

export const documentsApi = {
  list: (projectId: string, cursor: string | null) =>
    request<Page<ProjectDocument>>('GET', `/v1/projects/${encodeURIComponent(projectId)}/documents`, { query: { cursor, limit: PAGE_SIZE } }),
  get: (id: string) => request<ProjectDocument>('GET', one(id)),
  /** The document as it is now and its ETag, for a rename's If-Match. */
  getWithEtag: (id: string) => requestWithEtag<ProjectDocument>('GET', one(id)),
  rename: (id: string, name: string, etag: string | null) =>
    request<ProjectDocument>('PATCH', one(id), { body: { name }, ifMatch: etag ?? undefined }),
  remove: (id: string) => request<void>('DELETE', one(id)),
};

/** The API's download: the exact bytes as an attachment with the document's name (the session cookie is the credential). */
export const downloadHref = (id: string) => `${one(id)}/download`;

/** The same bytes shown in the browser's PDF viewer (the API honours `inline` for PDFs only). */
export const previewHref = (id: string) => `${one(id)}/download?disposition=inline`;

export const isPdf = (doc: Pick<ProjectDocument, 'content_type'>) => doc.content_type === 'application/pdf';

/** POST /v1/projects/{id}/documents: the file in `file`; its name is the document's name. */
export function uploadDocument(projectId: string, file: File, options: UploadOptions): Promise<ProjectDocument> {
  const form = new FormData();
  form.append('file', file, file.name);
  return postFile<ProjectDocument>(`/v1/projects/${encodeURIComponent(projectId)}/documents`, form, options);
}

/** `document.change` in docs/roles.md: restricted users rename and delete only what they uploaded. */
export const mayChange = (user: Pick<User, 'id' | 'role'>, doc: Pick<ProjectDocument, 'uploaded_by'>) =>
  user.role !== 'restricted' || doc.uploaded_by === user.id;

const TYPE_WORDS: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/jpeg': 'JPEG image',
  'image/png': 'PNG image',
  'image/webp': 'WebP image',
  'image/heic': 'HEIC image',
  'image/gif': 'GIF image',
  'image/tiff': 'TIFF image',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'Word document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'Excel workbook',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'PowerPoint deck',
  'text/csv': 'CSV',
  'text/plain': 'Text',
  'image/vnd.dwg': 'DWG drawing',
  'image/vnd.dxf': 'DXF drawing',
};

/** "PDF", "Word document"…; the media type itself for one this list does not know yet. */
export const typeWords = (contentType: string) => TYPE_WORDS[contentType] ?? contentType;

/** What the file chooser offers first (the API sniffs the bytes and refuses the rest in words). */
export const ACCEPT = '.pdf,.docx,.xlsx,.pptx,.csv,.txt,.dwg,.dxf,image/*';
