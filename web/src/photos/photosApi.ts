/**
 * The photo page's calls to the /v1 API: one photo (with its ETag, for If-Match), caption,
 * tags, annotations, the uploader's name, and the photo's neighbours in the project's timeline.
 */
import { request, requestWithEtag, type Page, type User } from '../api.ts';

/** The annotation shapes of PUT /v1/photos/{id}/annotations (src/features/photos/photos.annotations.ts). */
interface Stroke { color: string; width: number }
export type Shape =
  | ({ type: 'arrow' | 'line'; x1: number; y1: number; x2: number; y2: number } & Stroke)
  | ({ type: 'rectangle' | 'ellipse'; x: number; y: number; w: number; h: number } & Stroke)
  | ({ type: 'path'; points: Array<[number, number]> } & Stroke)
  | { type: 'text'; x: number; y: number; text: string; color: string; size: number };
export type ShapeType = Shape['type'];

/** Which photos a report or an export takes: by id, or by capture time and tags (the API combines what is given). */
export interface PhotoSelection {
  photo_ids?: string[];
  captured_after?: string;
  captured_before?: string;
  tag_ids?: string[];
}

export interface TagSummary { id: string; name: string; color: string }

export type CapturedAtSource = 'client' | 'exif_offset' | 'exif_local' | 'exif' | 'upload';

/** GET /v1/photos/{id} (src/features/photos/photos.schemas.ts), the fields the page uses. */
export interface PhotoDetail {
  id: string;
  /** Null while unfiled (docs/photos.md, "Photos that file themselves"). */
  project_id: string | null;
  url: string;
  variants: { original: string; large: string | null; thumbnail: string | null; annotated?: string };
  width: number | null;
  height: number | null;
  content_type: 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic';
  captured_at: string;
  captured_at_source: CapturedAtSource;
  captured_at_time_zone: string | null;
  coordinates: { lat: number; lon: number; altitude?: number | null } | null;
  coordinates_source: 'client' | 'exif' | null;
  caption: string | null;
  tags: TagSummary[];
  annotations: Shape[];
  processing_status: 'pending' | 'processed' | 'failed';
  processing_error: string | null;
  creator_id: string;
  updated_at: string;
}

export type WithEtag<T> = { body: T; etag: string | null };

const photoPath = (id: string) => `/v1/photos/${encodeURIComponent(id)}`;
const ifMatch = (etag: string | null) => etag ?? undefined;

export const photosApi = {
  photo: (id: string) => requestWithEtag<PhotoDetail>('GET', photoPath(id)),
  /** `caption: null` clears it. */
  updateCaption: (id: string, caption: string | null, etag: string | null) =>
    requestWithEtag<PhotoDetail>('PATCH', photoPath(id), { body: { caption }, ifMatch: ifMatch(etag) }),
  saveAnnotations: (id: string, shapes: Shape[], etag: string | null) =>
    requestWithEtag<PhotoDetail>('PUT', `${photoPath(id)}/annotations`, { body: { shapes }, ifMatch: ifMatch(etag) }),
  applyTag: (id: string, tagId: string) => requestWithEtag<PhotoDetail>('PUT', `${photoPath(id)}/tags/${encodeURIComponent(tagId)}`),
  removeTag: (id: string, tagId: string) => request<void>('DELETE', `${photoPath(id)}/tags/${encodeURIComponent(tagId)}`),
  user: (id: string) => request<User>('GET', `/v1/users/${encodeURIComponent(id)}`),
  /** Every tag of the workspace, by name (a picker's worth: pages of 100 until the end). */
  async allTags(): Promise<TagSummary[]> {
    const tags: TagSummary[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<TagSummary> = await request<Page<TagSummary>>('GET', '/v1/tags', { query: { limit: 100, cursor } });
      tags.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return tags;
  },
};

type TimelineQuery = { captured_after?: string; captured_before?: string; limit: number; cursor?: string | null };
const timeline = (projectId: string, q: TimelineQuery) =>
  request<Page<{ id: string }>>('GET', '/v1/photos', { query: { project_id: projectId, sort: 'captured_at', ...q } });
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The photos before and after this one in the project's timeline (captured_at newest first, ties
 * by id, newest first: the order of GET /v1/photos?sort=captured_at). The list only runs newest
 * first and its cursors are opaque, so:
 * - next (older): the photos taken at or before this one, from the newest; the one after it there.
 *   Photos taken at the same millisecond come first, so this one is found within a page or two.
 * - previous (newer): a tie listed just before it there, else the oldest photo taken after it: one
 *   request says whether there is any, then windows from its time, 10 minutes and 6× wider each
 *   time, until one holds some; the last of that window is the one.
 */
export async function timelineNeighbours(photo: Pick<PhotoDetail, 'id' | 'captured_at'> & { project_id: string }): Promise<{ previous: string | null; next: string | null }> {
  const at = Date.parse(photo.captured_at);
  let tieBefore: string | null = null;
  let next: string | null = null;
  let found = false;
  let cursor: string | null = null;
  do {
    const page: Page<{ id: string }> = await timeline(photo.project_id, { captured_before: iso(at + 1), limit: 20, cursor });
    for (const p of page.data) {
      if (found) { next = p.id; break; }
      if (p.id === photo.id) found = true;
      else tieBefore = p.id;
    }
    cursor = page.has_more ? page.next_cursor : null;
  } while (!next && cursor);
  const previous = found && tieBefore ? tieBefore : await oldestTakenAfter(photo.project_id, at + 1);
  return { previous, next };
}

const WINDOWS_MS = [10, 60, 360, 2_160, 12_960, 77_760, 466_560, 2_799_360].map((minutes) => minutes * 60_000);

async function oldestTakenAfter(projectId: string, from: number): Promise<string | null> {
  const any = await timeline(projectId, { captured_after: iso(from), limit: 1 });
  if (any.data.length === 0) return null;
  for (const span of [...WINDOWS_MS, Infinity]) {
    let last: string | null = null;
    let cursor: string | null = null;
    do {
      const page: Page<{ id: string }> = await timeline(projectId, {
        captured_after: iso(from), captured_before: span === Infinity ? undefined : iso(from + span), limit: 100, cursor,
      });
      last = page.data[page.data.length - 1]?.id ?? last;
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    if (last) return last;
  }
  return null;
}
