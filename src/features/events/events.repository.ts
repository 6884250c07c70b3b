import type { Executor } from '../../db/database.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';

/** Ids of the projects a restricted user may see, as a subquery (ProjectAccess.visibleProjectIds); null for all. */
export type VisibleProjects = ReturnType<ProjectAccess['visibleProjectIds']>;

export interface EventListCriteria {
  workspaceId: string;
  /** Only events of these projects (restricted users); events with no project are then left out too. */
  visibleProjects: VisibleProjects;
  /** Any of these event names; null for every kind. */
  events: readonly string[] | null;
  projectId?: string;
  /** created_at at or after it. */
  since?: Date;
  /** created_at before it. */
  until?: Date;
  /** The id of the last event of the previous page. */
  afterId: string | null;
  limit: number;
}

/** An event as stored: `payload` is its envelope, serialized once when it was emitted. */
export interface StoredEvent {
  id: string;
  created_at: Date;
  payload: string;
}

export class EventsRepository {
  /** Newest first by id; the time window is a filter on created_at, independent of the id keyset. */
  list(db: Executor, c: EventListCriteria): Promise<StoredEvent[]> {
    let q = db.selectFrom('events').select(['id', 'created_at', 'payload']).where('workspace_id', '=', c.workspaceId);
    if (c.visibleProjects !== null) q = q.where('project_id', 'in', c.visibleProjects);
    if (c.events !== null) q = q.where('event', 'in', c.events);
    if (c.projectId !== undefined) q = q.where('project_id', '=', c.projectId);
    if (c.since !== undefined) q = q.where('created_at', '>=', c.since);
    if (c.until !== undefined) q = q.where('created_at', '<', c.until);
    if (c.afterId !== null) q = q.where('id', '<', c.afterId);
    return q.orderBy('id', 'desc').limit(c.limit + 1).execute();
  }

  get(db: Executor, workspaceId: string, id: string, visibleProjects: VisibleProjects): Promise<StoredEvent | undefined> {
    let q = db.selectFrom('events').select(['id', 'created_at', 'payload']).where('workspace_id', '=', workspaceId).where('id', '=', id);
    if (visibleProjects !== null) q = q.where('project_id', 'in', visibleProjects);
    return q.executeTakeFirst();
  }

  /**
   * Deletes events created before `cutoff` (their deliveries and attempts cascade), a batch at a
   * time so no single transaction grows with the backlog. Returns how many were deleted.
   */
  async deleteCreatedBefore(db: Executor, cutoff: Date, batchSize = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await db.deleteFrom('events')
        .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('created_at', '<', cutoff).limit(batchSize))
        .executeTakeFirst();
      const deleted = Number(result.numDeletedRows);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
