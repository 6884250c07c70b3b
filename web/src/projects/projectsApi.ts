/**
 * The projects' crew, tags, cover photo, deletion and the map's full list: calls to the public
 * /v1 API (src/features/projects, src/features/tags, src/features/users) on the shared client.
 */
import { request, requestWithEtag, type Page, type Photo, type Project, type User } from '../api.ts';

export interface ProjectTag {
  id: string;
  name: string;
  color: string;
}

export interface Tag extends ProjectTag {
  created_by: string | null;
}

/** A project with the fields the crew, tags and cover need (the API always returns them). */
export interface ProjectDetails extends Project {
  tags: ProjectTag[];
  member_ids: string[];
  cover_photo_id: string | null;
  created_by: string;
}

export interface ProjectFilters {
  q?: string;
  status?: 'active' | 'archived' | 'all';
  tag_id?: string;
}

const projectPath = (id: string) => `/v1/projects/${encodeURIComponent(id)}`;

/** Every page of a list, up to `max` items (100 a page, the API's largest). */
async function everyPage<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>, max = 2000): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await fetchPage(cursor);
    items.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor && items.length < max);
  return items;
}

export const projectsApi = {
  /** Who is signed in (their role decides whether "Delete project" is offered). */
  me: () => request<User>('GET', '/v1/users/me'),
  /** The workspace's active users: who can be put on a crew. */
  users: () => everyPage((cursor) => request<Page<User>>('GET', '/v1/users', { query: { status: 'active', limit: 100, cursor } })),
  members: (id: string) => everyPage((cursor) => request<Page<User>>('GET', `${projectPath(id)}/members`, { query: { limit: 100, cursor } })),
  addMember: (id: string, userId: string) => request<User>('PUT', `${projectPath(id)}/members/${encodeURIComponent(userId)}`),
  removeMember: (id: string, userId: string) => request<void>('DELETE', `${projectPath(id)}/members/${encodeURIComponent(userId)}`),

  /** The workspace's tags, by name. */
  tags: () => everyPage((cursor) => request<Page<Tag>>('GET', '/v1/tags', { query: { limit: 100, cursor } })),
  createTag: (name: string) => request<Tag>('POST', '/v1/tags', { body: { name } }),
  applyTag: (id: string, tagId: string) => request<ProjectDetails>('PUT', `${projectPath(id)}/tags/${encodeURIComponent(tagId)}`),
  removeTag: (id: string, tagId: string) => request<void>('DELETE', `${projectPath(id)}/tags/${encodeURIComponent(tagId)}`),

  /** The project's processed photos, newest first: the ones that can be its cover. */
  coverCandidates: (id: string) => request<Page<Photo>>('GET', '/v1/photos', {
    query: { project_id: id, processing_status: 'processed', sort: 'captured_at', limit: 60 },
  }),

  project: (id: string) => requestWithEtag<ProjectDetails>('GET', projectPath(id)),
  /** Deletes the project with its content; `etag` guards against deleting what someone just changed. */
  deleteProject: (id: string, etag: string | null) => request<void>('DELETE', projectPath(id), { ifMatch: etag ?? undefined }),

  /** A page of the projects list (GET /v1/projects with its `tag_id` filter). */
  projectsPage: (filters: ProjectFilters, cursor: string | null, limit: number) =>
    request<Page<ProjectDetails>>('GET', '/v1/projects', { query: { ...filters, cursor, limit } }),

  /** Every project the filters keep (for the map), up to 2,000. */
  allProjects: (filters: ProjectFilters) =>
    everyPage((cursor) => request<Page<ProjectDetails>>('GET', '/v1/projects', { query: { ...filters, limit: 100, cursor } })),
};
