/**
 * A project's events through the public API (src/features/events): `GET /v1/events?project_id=`
 * (newest first, keyset-paginated, kept 30 days). Every role may read them; a restricted user
 * sees those of the projects they can see, which is any project whose page they can open.
 */
import { request, type Page } from '../api.ts';
import type { ActivityEvent } from './phrases.ts';

/** Events a page: enough to fill a screen after grouping, small enough to answer at once. */
export const EVENTS_PAGE = 50;

export const activityApi = {
  projectEvents: (projectId: string, cursor: string | null, limit = EVENTS_PAGE) =>
    request<Page<ActivityEvent>>('GET', '/v1/events', { query: { project_id: projectId, cursor, limit } }),
};
