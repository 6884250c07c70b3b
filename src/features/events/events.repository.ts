import { sql, type SqlBool } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { QueryShapes, slot } from '../../db/query-shapes.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';
import { ProjectsRepository } from '../projects/projects.repository.ts';

/** Ids of the projects a restricted user may see, as a subquery (ProjectAccess.visibleProjectIds); null for all. */
export type VisibleProjects = ReturnType<ProjectAccess['visibleProjectIds']>;

export interface EventListCriteria {
  workspaceId: string;
  /** Only events of the projects this (restricted) user may see; events with no project are then left out too. Null for all. */
  visibleTo: string | null;
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
  private readonly projects = new ProjectsRepository();
  /** The list's statement, built once per combination of filters (db/query-shapes.ts). */
  private readonly pages = new QueryShapes<Pick<StoredEvent, 'id' | 'payload'>>();

  /**
   * Newest first by id; the time window is a filter on created_at, independent of the id keyset.
   * A page needs only the envelopes and the last id (the cursor): created_at is not read.
   */
  list(db: Executor, c: EventListCriteria): Promise<Pick<StoredEvent, 'id' | 'payload'>[]> {
    const restricted = c.visibleTo !== null, events = c.events !== null, project = c.projectId !== undefined;
    const since = c.since !== undefined, until = c.until !== undefined, after = c.afterId !== null;
    const shape = `${+restricted}${+events}${+project}${+since}${+until}${+after}`;
    return this.pages.execute(db, shape, () => {
      let q = db.selectFrom('events').select(['id', 'payload']).where('workspace_id', '=', slot('workspaceId'));
      if (restricted) q = q.where('project_id', 'in', this.projects.visibleProjectIds(db, slot('workspaceId'), slot('userId')));
      if (events) q = q.where(sql<SqlBool>`event = any(${slot('events')}::text[])`);
      if (project) q = q.where('project_id', '=', slot('projectId'));
      if (since) q = q.where('created_at', '>=', slot('since'));
      if (until) q = q.where('created_at', '<', slot('until'));
      if (after) q = q.where('id', '<', slot('afterId'));
      return q.orderBy('id', 'desc').limit(slot('fetch'));
    }, {
      workspaceId: c.workspaceId, userId: c.visibleTo, events: c.events, projectId: c.projectId,
      since: c.since, until: c.until, afterId: c.afterId, fetch: c.limit + 1,
    });
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
