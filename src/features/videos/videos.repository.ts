import { sql, type Insertable, type SqlBool, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Database, VideosTable } from '../../db/schema.ts';
import { mediaListConditions, mediaListOrder, type MediaListCriteria } from '../photos/media.list.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { VideoRow } from './videos.views.ts';

export type VideoListCriteria = MediaListCriteria;

export class VideosRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<VideoRow | undefined> {
    return db.selectFrom('videos').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The videos among `ids`, in no particular order, in one statement (sync reads a page's videos
   * with it); `visibleProjects` as in the list: for a restricted user, only those of their projects.
   */
  getMany(db: Executor, workspaceId: string, ids: readonly string[], visibleProjects: ReturnType<ProjectAccess['visibleProjectIds']>): Promise<VideoRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    let q = db.selectFrom('videos as v').selectAll('v').where('v.workspace_id', '=', workspaceId).where(sql<SqlBool>`v.id = any(${ids}::text[])`);
    if (visibleProjects !== null) q = q.where('v.project_id', 'in', visibleProjects);
    return q.execute();
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
    let q = db.selectFrom('videos as v').selectAll('v');
    for (const condition of mediaListConditions('v', c)) q = q.where(condition);
    return q.orderBy(mediaListOrder('v', c.sort)).limit(c.limit + 1).execute();
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
