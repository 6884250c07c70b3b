import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound, validationFailed } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { parseRfc3339 } from '../../http/timestamps.ts';
import { isId } from '../../ids.ts';
import { ProjectAccess, projectScopeOf } from '../projects/projects.access.ts';
import { EVENT_TYPE_NAMES, EVENT_TYPES, isValidPattern, patternsMatching } from './event-types.ts';
import { EventsRepository, type EventListCriteria, type StoredEvent } from './events.repository.ts';
import type { EventListFilters, EventTypeListView } from './events.schemas.ts';

/** How long the event log keeps an event; the daily cleanup task deletes older ones. */
export const EVENT_RETENTION_DAYS = 30;

/**
 * The event log as integrators read it, to reconcile without (or alongside) webhooks. Everyone
 * but restricted users sees every event of the workspace; restricted users see only events of
 * the projects they can see, so none of the workspace-wide ones (`user.*`, `webhook.*`).
 * Events are returned as their stored envelope: the same bytes every webhook delivery sends.
 */
export class EventsService {
  private readonly events = new EventsRepository();
  private readonly access = new ProjectAccess();

  constructor(private readonly db: Db) {}

  types(): EventTypeListView {
    return { data: EVENT_TYPE_NAMES.map((name) => ({ name, description: EVENT_TYPES[name] })) };
  }

  /** A page of envelopes (serialized JSON), newest first. */
  async list(actor: Actor, filters: EventListFilters & { limit: number }): Promise<PageOf<string>> {
    const [afterId] = decodeCursor(filters.cursor, 'id', 1, ([id]) => typeof id === 'string' && isId('event', id)) ?? [null];
    const since = filters.since === undefined ? undefined : parseRfc3339(filters.since, 'query.since');
    const until = filters.until === undefined ? undefined : parseRfc3339(filters.until, 'query.until');
    if (since && until && until <= since) validationFailed([{ path: 'query.until', message: 'must be after `since`' }]);
    const criteria: EventListCriteria = {
      workspaceId: actor.workspaceId,
      visibleTo: projectScopeOf(actor),
      events: filters.event === undefined ? null : eventsMatching(filters.event),
      projectId: filters.project_id,
      since,
      until,
      afterId: afterId as string | null,
      limit: filters.limit,
    };
    const rows = await this.events.list(this.db, criteria);
    return toPage(rows, filters.limit, 'id', (e) => [e.id], (e) => e.payload);
  }

  /** One event; another workspace's, or one a restricted user may not see, is a 404. */
  async get(actor: Actor, id: string): Promise<StoredEvent> {
    const event = isId('event', id) ? await this.events.get(this.db, actor.workspaceId, id, this.access.visibleProjectIds(this.db, actor)) : undefined;
    return event ?? notFound('event', id);
  }
}

/** The event names a filter stands for (an exact name or `resource.*`); null when it is `*`; a 400 when it names nothing. */
function eventsMatching(filter: string): string[] | null {
  if (!isValidPattern(filter)) {
    validationFailed([{ path: 'query.event', message: 'must be an event name from GET /v1/event-types or a `resource.*` wildcard such as `project.*`' }]);
  }
  if (filter === '*') return null;
  return EVENT_TYPE_NAMES.filter((name) => patternsMatching(name).includes(filter));
}

/** The daily retention task: deletes events older than EVENT_RETENTION_DAYS, with their deliveries. */
export function purgeExpiredEvents(db: Db, now = new Date()): Promise<number> {
  return new EventsRepository().deleteCreatedBefore(db, new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000));
}
