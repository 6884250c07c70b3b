/**
 * Comments and the people they name, through the public API (src/features/comments, users):
 * `GET/POST /v1/{projects|photos|tasks}/{id}/comments` (oldest first, keyset-paginated),
 * `GET/PATCH/DELETE /v1/comments/{id}` (If-Match from the GET), `GET /v1/users/me`, `GET /v1/users`.
 */
import { request, requestWithEtag, type Page } from '../api.ts';

/** What a comment is on: the component takes one of these. */
export interface CommentTarget {
  type: 'project' | 'photo' | 'task';
  id: string;
}

export interface Comment {
  id: string;
  subject: { type: 'project' | 'photo' | 'task'; id: string };
  project_id: string;
  author_id: string;
  body: string;
  /** The users the body mentions who could be: only these `@handle`s are highlighted. */
  mentions: Array<{ user_id: string; handle: string }>;
  created_at: string;
  updated_at: string;
}

/** A user as GET /v1/users gives them: `handle` is what `@handle` names. */
export interface Person {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  handle: string;
  role: 'admin' | 'manager' | 'standard' | 'restricted';
  status: 'active' | 'deactivated';
}

/** The API's limit on a comment's body (comments.schemas.ts BODY_MAX). */
export const COMMENT_MAX_LENGTH = 10_000;

const COLLECTION: Record<CommentTarget['type'], string> = { project: 'projects', photo: 'photos', task: 'tasks' };
const base = (t: CommentTarget) => `/v1/${COLLECTION[t.type]}/${encodeURIComponent(t.id)}/comments`;
const one = (id: string) => `/v1/comments/${encodeURIComponent(id)}`;

export const commentsApi = {
  list: (target: CommentTarget, cursor: string | null) => request<Page<Comment>>('GET', base(target), { query: { cursor, limit: 50 } }),
  create: (target: CommentTarget, body: string) => request<Comment>('POST', base(target), { body: { body } }),
  get: (id: string) => request<Comment>('GET', one(id)),
  /** The comment as it is now and its ETag, for an edit's If-Match. */
  getWithEtag: (id: string) => requestWithEtag<Comment>('GET', one(id)),
  update: (id: string, body: string, etag: string | null) =>
    request<Comment>('PATCH', one(id), { body: { body }, ifMatch: etag ?? undefined }),
  remove: (id: string) => request<void>('DELETE', one(id)),
};

export const me = () => request<Person>('GET', '/v1/users/me');

/** The API has no search on users: the workspace's people are read once (100 a page) and filtered here. */
const PEOPLE_PAGES = 20;
const PEOPLE_FRESH_MS = 5 * 60_000;
let people: { userId: string; at: number; list: Promise<Person[]> } | null = null;

/**
 * Everyone in the caller's workspace, deactivated people too (their old comments keep a name),
 * cached for five minutes per signed-in user.
 */
export function workspacePeople(userId: string): Promise<Person[]> {
  if (people && people.userId === userId && Date.now() - people.at < PEOPLE_FRESH_MS) return people.list;
  const list = (async () => {
    const all: Person[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < PEOPLE_PAGES; i++) {
      const page: Page<Person> = await request<Page<Person>>('GET', '/v1/users', { query: { status: 'all', limit: 100, cursor } });
      all.push(...page.data);
      if (!page.has_more || !page.next_cursor) break;
      cursor = page.next_cursor;
    }
    return all;
  })();
  people = { userId, at: Date.now(), list };
  list.catch(() => {
    if (people?.list === list) people = null;
  });
  return list;
}

/** "Ada Lovelace", else the handle. */
export function personName(p: Person): string {
  return [p.first_name, p.last_name].filter(Boolean).join(' ') || `@${p.handle}`;
}
