/**
 * The web app's only way to the server: the public /v1 API with the session cookie
 * (`credentials: 'same-origin'`), the CSRF token on every state-changing request, and
 * problem+json errors turned into an ApiProblem whose `title` and `detail` are words to show.
 */

export interface User {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: string;
}

export interface Session {
  user: User;
  expires_at: string;
  csrf_token: string;
}

export interface Invitation {
  email: string;
  first_name: string | null;
  last_name: string | null;
  workspace: { id: string; name: string };
  expires_at: string;
}

export interface Address {
  street_address_1: string | null;
  street_address_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
}

export interface Coordinates {
  lat: number;
  lon: number;
}

/** A project's geofence (docs/photos.md, "Photos that file themselves"): a GeoJSON Polygon, or a radius around its coordinates. */
export type Geofence = { type: 'Polygon'; coordinates: number[][][] } | { radius_m: number };

/** What the project form sends: POST /v1/projects, or PATCH /v1/projects/{id} (merge patch). */
export interface ProjectInput {
  name: string;
  address: Partial<Address>;
  coordinates: Coordinates | null;
  /** Sent only when the form changed it; null clears it. */
  geofence?: Geofence | null;
}

export interface FieldError {
  path: string;
  message: string;
}

export interface Project {
  id: string;
  name: string;
  description: string | null;
  status: 'active' | 'archived';
  address: Address;
  coordinates: Coordinates | null;
  geofence: Geofence | null;
  cover_photo: { id: string; thumbnail_url: string } | null;
  created_by: string;
  updated_at: string;
}

export interface Photo {
  id: string;
  /** Null while the photo waits unfiled (uploaded without a project). */
  project_id: string | null;
  caption: string | null;
  captured_at: string;
  processing_status: 'pending' | 'processed' | 'failed';
  variants: { original: string; thumbnail: string | null; [name: string]: string | null };
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** An error the API answered (problem+json), or one we made up when it could not be reached. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    /** A 400's `errors[]`: which field is wrong, in words. */
    readonly errors: FieldError[] = [],
  ) {
    super(detail ? `${title}: ${detail}` : title);
  }
}

let csrfToken: string | null = null;

/** Remembered from sign-in or GET /v1/sessions/current; sent as X-CSRF-Token on writes. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The token for requests made without `request` (an upload's XMLHttpRequest, which reports progress). */
export function currentCsrfToken(): string | null {
  return csrfToken;
}

type Query = Record<string, string | number | undefined | null>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

export async function request<T>(method: string, path: string, options: { query?: Query; body?: unknown; ifMatch?: string } = {}): Promise<T> {
  return (await requestWithEtag<T>(method, path, options)).body;
}

/** The body and the ETag header (for a later If-Match). */
export async function requestWithEtag<T>(method: string, path: string, options: { query?: Query; body?: unknown; ifMatch?: string } = {}): Promise<{ body: T; etag: string | null }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(withQuery(path, options.query), {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiProblem(0, 'network_error', 'No connection', 'The server could not be reached. Check the connection and try again.');
  }
  if (res.status === 204) return { body: undefined as T, etag: null };
  const text = await res.text();
  if (res.ok) return { body: parseJson(text) as T, etag: res.headers.get('etag') };
  throw problemOf(res.status, res.statusText, text);
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null; // Not JSON (a proxy's error page): the caller still has the status.
  }
}

/** An error answer (problem+json, or anything else) as an ApiProblem in words. */
export function problemOf(status: number, statusText: string, text: string): ApiProblem {
  const p = (parseJson(text) ?? {}) as Partial<Record<'code' | 'title' | 'detail' | 'errors', unknown>>;
  return new ApiProblem(
    status,
    typeof p.code === 'string' ? p.code : `http_${status}`,
    typeof p.title === 'string' && p.title ? p.title : `The server answered ${status}${statusText ? ` ${statusText}` : ''}`,
    typeof p.detail === 'string' ? p.detail : '',
    Array.isArray(p.errors) ? (p.errors as FieldError[]).filter((e) => !!e && typeof e.path === 'string' && typeof e.message === 'string') : [],
  );
}

export const api = {
  signIn: (email: string, password: string) => request<Session>('POST', '/v1/sessions', { body: { email, password } }),
  currentSession: () => request<Session>('GET', '/v1/sessions/current'),
  signOut: () => request<void>('DELETE', '/v1/sessions/current'),
  invitation: (token: string) => request<Invitation>('GET', `/v1/invitations/${encodeURIComponent(token)}`),
  acceptInvitation: (token: string, body: { password: string; first_name?: string; last_name?: string }) =>
    request<Session>('POST', `/v1/invitations/${encodeURIComponent(token)}`, { body }),
  requestPasswordReset: (email: string) => request<unknown>('POST', '/v1/password-resets', { body: { email } }),
  resetPassword: (token: string, password: string) =>
    request<void>('POST', `/v1/password-resets/${encodeURIComponent(token)}`, { body: { password } }),
  projects: (query: { q?: string; status?: 'active' | 'archived' | 'all'; cursor?: string | null; limit?: number }) =>
    request<Page<Project>>('GET', '/v1/projects', { query }),
  project: (id: string) => request<Project>('GET', `/v1/projects/${encodeURIComponent(id)}`),
  /** The project and its ETag, for an edit's If-Match. */
  projectWithEtag: (id: string) => requestWithEtag<Project>('GET', `/v1/projects/${encodeURIComponent(id)}`),
  createProject: (body: ProjectInput) => request<Project>('POST', '/v1/projects', { body }),
  updateProject: (id: string, body: Partial<ProjectInput>, etag: string | null) =>
    requestWithEtag<Project>('PATCH', `/v1/projects/${encodeURIComponent(id)}`, { body, ifMatch: etag ?? undefined }),
  archiveProject: (id: string) => requestWithEtag<Project>('POST', `/v1/projects/${encodeURIComponent(id)}/archive`),
  restoreProject: (id: string) => requestWithEtag<Project>('POST', `/v1/projects/${encodeURIComponent(id)}/restore`),
  photos: (query: { project_id: string; cursor?: string | null; limit?: number }) =>
    request<Page<Photo>>('GET', '/v1/photos', { query: { ...query, sort: 'captured_at' } }),
  /** Files an unfiled photo under a project, or moves a filed one (photo.assigned). */
  movePhoto: (id: string, projectId: string) => request<Photo>('PATCH', `/v1/photos/${encodeURIComponent(id)}`, { body: { project_id: projectId } }),
};

/** "Ada Lovelace", else the e-mail address. */
export function displayName(user: User): string {
  return [user.first_name, user.last_name].filter(Boolean).join(' ') || user.email;
}

export function formatAddress(a: Address): string {
  return [a.street_address_1, a.street_address_2, a.city, [a.state, a.postal_code].filter(Boolean).join(' '), a.country]
    .filter(Boolean).join(', ');
}
