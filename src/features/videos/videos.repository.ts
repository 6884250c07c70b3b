import { sql, type Insertable, type SqlBool, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Database, VideosTable } from '../../db/schema.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';
import type { BoundingBox } from '../photos/photos.repository.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { VideoRow } from './videos.views.ts';

export interface VideoListCriteria {
  workspaceId: string;
  /** A subquery of the project ids the caller may see (restricted users); null for all. */
  visibleProjects: ReturnType<ProjectAccess['visibleProjectIds']>;
  projectId?: string;
  capturedAfter?: Date;
  capturedBefore?: Date;
  creatorId?: string;
  bbox?: BoundingBox;
  processingStatus?: 'pending' | 'processed' | 'failed';
  sort: 'created_at' | 'captured_at';
  after: { id: string; capturedAt: Date | null } | null;
  limit: number;
}

export class VideosRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<VideoRow | undefined> {
    return db.selectFrom('videos').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<VideoRow | undefined> {
    return db.selectFrom('videos').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** For jobs, which act on ids they were given (no caller, no workspace). */
  getById(db: Executor, id: string): Promise<VideoRow | undefined> {
    return db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(db: Executor, row: Insertable<VideosTable>): Promise<VideoRow> {
    return db.insertInto('videos').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** One query per page: filters, visibility and the keyset together. */
  list(db: Executor, c: VideoListCriteria): Promise<VideoRow[]> {
    let q = db.selectFrom('videos as v').selectAll('v').where('v.workspace_id', '=', c.workspaceId);
    if (c.projectId !== undefined) q = q.where('v.project_id', '=', c.projectId);
    if (c.visibleProjects !== null) q = q.where('v.project_id', 'in', c.visibleProjects);
    if (c.capturedAfter !== undefined) q = q.where('v.captured_at', '>=', c.capturedAfter);
    if (c.capturedBefore !== undefined) q = q.where('v.captured_at', '<', c.capturedBefore);
    if (c.creatorId !== undefined) q = q.where('v.creator_id', '=', c.creatorId);
    if (c.processingStatus !== undefined) q = q.where('v.processing_status', '=', c.processingStatus);
    if (c.bbox !== undefined) {
      const b = c.bbox;
      q = q.where('v.lat', '>=', b.minLat).where('v.lat', '<=', b.maxLat);
      q = b.minLon <= b.maxLon
        ? q.where('v.lon', '>=', b.minLon).where('v.lon', '<=', b.maxLon)
        : q.where((eb) => eb.or([eb('v.lon', '>=', b.minLon), eb('v.lon', '<=', b.maxLon)]));
    }
    if (c.sort === 'captured_at') {
      if (c.after) q = q.where(sql<SqlBool>`(v.captured_at, v.id) < (${c.after.capturedAt}, ${c.after.id})`);
      q = q.orderBy('v.captured_at', 'desc').orderBy('v.id', 'desc');
    } else {
      if (c.after) q = q.where('v.id', '<', c.after.id);
      q = q.orderBy('v.id', 'desc');
    }
    return q.limit(c.limit + 1).execute();
  }

  /** Applies the changes and moves updated_at forward (at least 1 ms). */
  update(db: Executor, id: string, changes: UpdateObject<Database, 'videos'>): Promise<VideoRow> {
    return db.updateTable('videos').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id)
      .returningAll().executeTakeFirstOrThrow();
  }

  /** The processing result, written only while the video is still pending (a second run writes nothing). */
  finishProcessing(db: Executor, id: string, changes: UpdateObject<Database, 'videos'>): Promise<VideoRow | undefined> {
    return db.updateTable('videos').set({ ...changes, processed_at: sql<Date>`now()`, updated_at: bumpUpdatedAt })
      .where('id', '=', id).where('processing_status', '=', 'pending')
      .returningAll().executeTakeFirst();
  }

  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('videos').where('id', '=', id).execute();
  }

  /** Videos pending for longer than `olderThan` (their job may have been lost). */
  stalePending(db: Executor, olderThan: Date, limit: number): Promise<{ id: string }[]> {
    return db.selectFrom('videos').select('id').where('processing_status', '=', 'pending').where('created_at', '<', olderThan)
      .orderBy('created_at').limit(limit).execute();
  }
}
