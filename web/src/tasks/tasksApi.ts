/**
 * Tasks through the public API (src/features/tasks): `GET /v1/projects/{id}/tasks` and
 * `GET /v1/tasks` with their filters, `POST /v1/projects/{id}/tasks`, `GET/PATCH /v1/tasks/{id}`
 * (If-Match from the GET; photos are attached and detached by replacing `photo_ids`),
 * `POST /v1/tasks/{id}/complete|reopen`; the crew (`GET /v1/projects/{id}/members`) and the
 * project's photos for the picker (`GET /v1/photos?project_id=…`).
 */
import { request, requestWithEtag, type Page, type Photo, type Project } from '../api.ts';
import type { Person } from '../comments/commentsApi.ts';

/** A task as the API returns it (tasks.schemas.ts `Task`). */
export interface Task {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  status: 'open' | 'completed';
  assignee_id: string | null;
  due_at: string | null;
  completed_at: string | null;
  completed_by: string | null;
  photo_ids: string[];
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** What the task form sends (POST, or PATCH as a merge patch). */
export interface TaskInput {
  title: string;
  description: string | null;
  assignee_id: string | null;
  due_at: string | null;
}

/** The list's filters as the API names them; `overdue` becomes `status=open&due_before=<now>`. */
export interface TaskFilters {
  assignee_id?: string | null;
  status?: 'open' | 'completed' | null;
  overdue?: boolean;
}

/** The API's limit on a title (tasks.schemas.ts TITLE_MAX). */
export const TITLE_MAX = 200;

const taskPath = (id: string) => `/v1/tasks/${encodeURIComponent(id)}`;
const projectPath = (id: string) => `/v1/projects/${encodeURIComponent(id)}`;

function listQuery(filters: TaskFilters, cursor: string | null, now: Date) {
  return {
    assignee_id: filters.assignee_id,
    status: filters.overdue ? 'open' : filters.status,
    due_before: filters.overdue ? now.toISOString() : null,
    sort: 'due_at',
    limit: 50,
    cursor,
  };
}

/** Every page of a list, up to `max` items. */
async function everyPage<T>(fetchPage: (cursor: string | null) => Promise<Page<T>>, max = 1000): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await fetchPage(cursor);
    items.push(...page.data);
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor && items.length < max);
  return items;
}

export const tasksApi = {
  /** A page of a project's tasks, soonest due first (undated last). */
  projectTasks: (projectId: string, filters: TaskFilters, cursor: string | null, now = new Date()) =>
    request<Page<Task>>('GET', `${projectPath(projectId)}/tasks`, { query: listQuery(filters, cursor, now) }),
  /** A page of the tasks of every project the caller can see, soonest due first. */
  tasks: (filters: TaskFilters, cursor: string | null, now = new Date()) =>
    request<Page<Task>>('GET', '/v1/tasks', { query: listQuery(filters, cursor, now) }),
  task: (id: string) => requestWithEtag<Task>('GET', taskPath(id)),
  create: (projectId: string, body: TaskInput) => request<Task>('POST', `${projectPath(projectId)}/tasks`, { body }),
  update: (id: string, body: Partial<TaskInput> & { photo_ids?: string[] }, etag: string | null) =>
    requestWithEtag<Task>('PATCH', taskPath(id), { body, ifMatch: etag ?? undefined }),
  complete: (id: string) => requestWithEtag<Task>('POST', `${taskPath(id)}/complete`),
  reopen: (id: string) => requestWithEtag<Task>('POST', `${taskPath(id)}/reopen`),

  /** The project's crew: the people a task can be assigned to here. */
  crew: (projectId: string) => everyPage((cursor) => request<Page<Person>>('GET', `${projectPath(projectId)}/members`, { query: { limit: 100, cursor } })),
  project: (id: string) => request<Project>('GET', projectPath(id)),
  photo: (id: string) => request<Photo>('GET', `/v1/photos/${encodeURIComponent(id)}`),
  /** A page of the project's photos in the timeline's order (newest taken first), for the picker. */
  projectPhotos: (projectId: string, cursor: string | null) =>
    request<Page<Photo>>('GET', '/v1/photos', { query: { project_id: projectId, sort: 'captured_at', limit: 60, cursor } }),
};
