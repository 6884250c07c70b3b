/**
 * The photo and video calls of the project page: the lists and single reads through `request`, and
 * uploads through XMLHttpRequest, the one browser API that reports upload progress (fetch does not).
 */
import { ApiProblem, currentCsrfToken, problemOf, request, type Page } from '../api.ts';

type ProcessingStatus = 'pending' | 'processed' | 'failed';

export interface TagSummary {
  id: string;
  name: string;
  color: string;
}

/** GET /v1/photos/{id}: the fields the timeline reads. */
export interface Photo {
  id: string;
  project_id: string;
  caption: string | null;
  captured_at: string;
  tags: TagSummary[];
  processing_status: ProcessingStatus;
  processing_error: string | null;
  variants: { original: string; large: string | null; thumbnail: string | null };
}

/** GET /v1/videos/{id}: the fields the timeline reads. */
export interface Video {
  id: string;
  project_id: string;
  url: string;
  poster_url: string | null;
  duration_s: number | null;
  caption: string | null;
  captured_at: string;
  processing_status: ProcessingStatus;
  processing_error: string | null;
}

export interface Tag {
  id: string;
  name: string;
  color: string;
}

/** One entry of the timeline, a photo or a video, in the shape the timeline draws. */
export interface MediaItem {
  kind: 'photo' | 'video';
  id: string;
  caption: string | null;
  capturedAt: string;
  status: ProcessingStatus;
  /** A small image to show: the photo's thumbnail, the video's poster; null while processing (or a video without ffmpeg). */
  thumbnail: string | null;
  durationSeconds: number | null;
  tagIds: string[];
  /** Where the tile leads: the photo page, or the video file itself (there is no video page). */
  href: string;
}

export const photoItem = (p: Photo): MediaItem => ({
  kind: 'photo', id: p.id, caption: p.caption, capturedAt: p.captured_at, status: p.processing_status,
  thumbnail: p.variants.thumbnail, durationSeconds: null, tagIds: p.tags.map((t) => t.id), href: `/photos/${p.id}`,
});

export const videoItem = (v: Video): MediaItem => ({
  kind: 'video', id: v.id, caption: v.caption, capturedAt: v.captured_at, status: v.processing_status,
  thumbnail: v.poster_url, durationSeconds: v.duration_s, tagIds: [], href: v.url,
});

/** The list filters both lists share (GET /v1/photos and GET /v1/videos), plus the photos' tag. */
export interface MediaQuery {
  project_id: string;
  captured_after?: string;
  captured_before?: string;
  tag_id?: string;
  cursor?: string | null;
  limit?: number;
}

export const mediaApi = {
  photos: (query: MediaQuery) => request<Page<Photo>>('GET', '/v1/photos', { query: { ...query, sort: 'captured_at' } }),
  // Videos carry no tags: the caller leaves them out when a tag is chosen.
  videos: ({ tag_id: _, ...query }: MediaQuery) => request<Page<Video>>('GET', '/v1/videos', { query: { ...query, sort: 'captured_at' } }),
  item: async (kind: MediaItem['kind'], id: string): Promise<MediaItem> => kind === 'photo'
    ? photoItem(await request<Photo>('GET', `/v1/photos/${encodeURIComponent(id)}`))
    : videoItem(await request<Video>('GET', `/v1/videos/${encodeURIComponent(id)}`)),
  tags: (cursor: string | null) => request<Page<Tag>>('GET', '/v1/tags', { query: { cursor, limit: 100 } }),
};

const VIDEO_NAME = /\.(mp4|m4v|mov|webm)$/i;

/** Videos go to the video endpoint; everything else (images, and files the browser cannot name) to the photo one, which says in words what it refuses. */
export const kindOfFile = (file: File): MediaItem['kind'] =>
  file.type.startsWith('video/') || (!file.type && VIDEO_NAME.test(file.name)) ? 'video' : 'photo';

export interface UploadOptions {
  /** The same key for a retry of the same file: a response lost on the way cannot make a second photo. */
  idempotencyKey: string;
  onProgress(sent: number, total: number): void;
  signal: AbortSignal;
}

/** An upload's outcome when the server answered: the item, or the refusal in words; `replayed` when it is a stored answer to the same key. */
export class UploadRefused extends ApiProblem {
  constructor(problem: ApiProblem, readonly replayed: boolean) {
    super(problem.status, problem.code, problem.title, problem.detail, problem.errors);
  }
}

/**
 * POST /v1/projects/{id}/photos or …/videos, multipart with the file in `file` and no other field:
 * the capture time comes from the file's EXIF or metadata, not from its `lastModified` (which is
 * when the file was last written — a copy or a download — and would override EXIF, see docs/photos.md).
 */
export function uploadMedia(projectId: string, file: File, options: UploadOptions): Promise<MediaItem> {
  const kind = kindOfFile(file);
  const form = new FormData();
  form.append('file', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/v1/projects/${encodeURIComponent(projectId)}/${kind === 'photo' ? 'photos' : 'videos'}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('idempotency-key', options.idempotencyKey);
    const token = currentCsrfToken();
    if (token) xhr.setRequestHeader('x-csrf-token', token);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) options.onProgress(e.loaded, e.total);
    };
    xhr.onload = () => {
      if (xhr.status === 201 || xhr.status === 200) {
        try {
          const body = JSON.parse(xhr.responseText) as Photo & Video;
          resolve(kind === 'photo' ? photoItem(body) : videoItem(body));
        } catch {
          reject(new ApiProblem(xhr.status, 'bad_response', 'Unexpected answer', 'The server accepted the file but its answer could not be read. Reload the page to see it.'));
        }
        return;
      }
      reject(new UploadRefused(problemOf(xhr.status, xhr.statusText, xhr.responseText), xhr.getResponseHeader('idempotent-replayed') === 'true'));
    };
    xhr.onerror = () => reject(new ApiProblem(0, 'network_error', 'Upload interrupted', 'The connection was lost before the server answered. Check the connection and retry.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    options.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `upload-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
