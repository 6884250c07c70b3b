/**
 * The photo and video calls of the project page: the lists and single reads through `request`, and
 * uploads through postFile (XMLHttpRequest, for their progress).
 */
import { request, type Page } from '../api.ts';
import { postFile, type UploadOptions } from '../uploads/postFile.ts';

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

/**
 * POST /v1/projects/{id}/photos or …/videos, multipart with the file in `file` and no other field:
 * the capture time comes from the file's EXIF or metadata, not from its `lastModified` (which is
 * when the file was last written — a copy or a download — and would override EXIF, see docs/photos.md).
 */
export async function uploadMedia(projectId: string, file: File, options: UploadOptions): Promise<MediaItem> {
  const kind = kindOfFile(file);
  const form = new FormData();
  form.append('file', file, file.name);
  const body = await postFile<Photo & Video>(`/v1/projects/${encodeURIComponent(projectId)}/${kind === 'photo' ? 'photos' : 'videos'}`, form, options);
  return kind === 'photo' ? photoItem(body) : videoItem(body);
}
