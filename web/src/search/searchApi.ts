/**
 * Search through the public API (src/features/search): `GET /v1/search?q=&types=&project_id=`,
 * the best results first, each with a plain-text snippet whose matched words sit between « and ».
 * A comment is opened through its subject (`GET /v1/comments/{id}`), a video through its file.
 */
import { request } from '../api.ts';

export const SEARCH_TYPES = ['project', 'photo', 'video', 'task', 'comment', 'document'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

/** One hit as the API returns it (search.schemas.ts `SearchResult`). */
export interface SearchResult {
  type: SearchType;
  id: string;
  project_id: string | null;
  title: string;
  snippet: string;
  score: number;
}

export interface SearchCriteria {
  q: string;
  type: SearchType | null;
  projectId: string | null;
}

/** How many hits a page asks for: the API's most (it has no further pages). */
export const SEARCH_LIMIT = 50;

export async function search(criteria: SearchCriteria): Promise<SearchResult[]> {
  const query: Record<string, string> = { q: criteria.q, limit: String(SEARCH_LIMIT) };
  if (criteria.type) query.types = criteria.type;
  if (criteria.projectId) query.project_id = criteria.projectId;
  return (await request<{ data: SearchResult[] }>('GET', '/v1/search', { query })).data;
}

/** Where a comment is shown: the page of what it is on. */
export async function commentHref(id: string): Promise<string> {
  const comment = await request<{ subject: { type: 'project' | 'photo' | 'task'; id: string }; project_id: string }>('GET', `/v1/comments/${encodeURIComponent(id)}`);
  const { type, id: subject } = comment.subject;
  if (type === 'photo') return `/photos/${subject}`;
  if (type === 'task') return `/projects/${comment.project_id}/tasks/${subject}`;
  return `/projects/${subject}`;
}

/** A video has no page of its own in the app: it opens its file (the browser plays it), as in the timeline. */
export async function videoHref(id: string): Promise<string> {
  return (await request<{ url: string }>('GET', `/v1/videos/${encodeURIComponent(id)}`)).url;
}

/**
 * The snippet in parts: the text between « and » is a match. The API never sends HTML (a « or »
 * of the text itself comes as ‹ or ›), so the parts are shown as text, the matches marked.
 */
export function snippetParts(snippet: string): { text: string; match: boolean }[] {
  const parts: { text: string; match: boolean }[] = [];
  const pattern = /«([^«»]*)»/g;
  let at = 0;
  for (let m = pattern.exec(snippet); m; m = pattern.exec(snippet)) {
    if (m.index > at) parts.push({ text: snippet.slice(at, m.index), match: false });
    if (m[1]) parts.push({ text: m[1], match: true });
    at = m.index + m[0].length;
  }
  if (at < snippet.length) parts.push({ text: snippet.slice(at), match: false });
  return parts;
}
