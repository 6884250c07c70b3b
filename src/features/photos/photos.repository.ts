import { sql, type Insertable, type SqlBool, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Database, PhotosTable } from '../../db/schema.ts';
import { hasPhotoTag } from '../tags/tags.repository.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import { mediaListConditions, mediaListOrder, type MediaListCriteria } from './media.list.ts';
import type { PhotoRow } from './photos.views.ts';

export type { BoundingBox } from './media.list.ts';

export interface PhotoListCriteria extends MediaListCriteria {
  /** Only photos carrying this tag. */
  tagId?: string;
  /** Only unfiled photos (`project_id=none`). */
  unfiled?: boolean;
  /**
   * For restricted users (null for the others, with `visibleProjects` null too): photos of the
   * projects they see, and unfiled photos they uploaded.
   */
  visibleTo: { projects: NonNullable<MediaListCriteria['visibleProjects']>; userId: string } | null;
}

/** On rows named `ph`: photos of the projects a restricted user sees, and the unfiled ones they uploaded. */
const seenBy = (visibleTo: NonNullable<PhotoListCriteria['visibleTo']>) =>
  sql<SqlBool>`(ph.project_id in (${visibleTo.projects}) or (ph.project_id is null and ph.creator_id = ${visibleTo.userId}))`;

export class PhotosRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<PhotoRow | undefined> {
    return db.selectFrom('photos').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * The photos among `ids`, in no particular order, in one statement (sync reads a page's photos
   * with it); `visibleTo` as in the list: for a restricted user, only photos of their projects and
   * their own unfiled ones, the rule `get` applies photo by photo.
   */
  getMany(db: Executor, workspaceId: string, ids: readonly string[], visibleTo: PhotoListCriteria['visibleTo']): Promise<PhotoRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    let q = db.selectFrom('photos as ph').selectAll('ph').where('ph.workspace_id', '=', workspaceId).where(sql<SqlBool>`ph.id = any(${ids}::text[])`);
    if (visibleTo !== null) q = q.where(seenBy(visibleTo));
    return q.execute();
  }

  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<PhotoRow | undefined> {
    return db.selectFrom('photos').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** For jobs, which act on ids they were given (no caller, no workspace). */
  getById(db: Executor, id: string, lock = false): Promise<PhotoRow | undefined> {
    let q = db.selectFrom('photos').selectAll().where('id', '=', id);
    if (lock) q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** A new photo has no tags yet: the caller applies any (TagsRepository.applyToPhoto) and sets `tags`. */
  insert(db: Executor, row: Insertable<PhotosTable>): Promise<PhotoRow> {
    return db.insertInto('photos').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** One query per page: filters, visibility and the keyset together (the tags are on the row). */
  list(db: Executor, c: PhotoListCriteria): Promise<PhotoRow[]> {
    let q = db.selectFrom('photos as ph').selectAll('ph');
    for (const condition of mediaListConditions('ph', c)) q = q.where(condition);
    if (c.tagId !== undefined) q = q.where(hasPhotoTag('ph.id', c.tagId));
    if (c.unfiled) q = q.where('ph.project_id', 'is', null);
    if (c.visibleTo !== null) q = q.where(seenBy(c.visibleTo));
    return q.orderBy(mediaListOrder('ph', c.sort)).limit(c.limit + 1).execute();
  }

  /** Applies the changes and moves updated_at forward (at least 1 ms). */
  update(db: Executor, id: string, changes: UpdateObject<Database, 'photos'>): Promise<PhotoRow> {
    return db.updateTable('photos').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id)
      .returningAll().executeTakeFirstOrThrow();
  }

  /** The processing result, written only while the photo is still pending (a second run writes nothing). */
  finishProcessing(db: Executor, id: string, changes: UpdateObject<Database, 'photos'>): Promise<PhotoRow | undefined> {
    return db.updateTable('photos').set({ ...changes, processed_at: sql<Date>`now()`, updated_at: bumpUpdatedAt })
      .where('id', '=', id).where('processing_status', '=', 'pending')
      .returningAll().executeTakeFirst();
  }

  /** Processed photos whose EXIF time was read before migration 014 (source `exif`, no zone yet). */
  legacyExifTimes(db: Executor, limit: number): Promise<{ id: string }[]> {
    return db.selectFrom('photos').select('id').where('captured_at_source', '=', 'exif').where('captured_at_time_zone', 'is', null)
      .orderBy('id').limit(limit).execute();
  }

  /** What a photo's time zone falls back to: its project's site (none while unfiled), then the workspace's time zone. */
  async placeFallbacks(db: Executor, workspaceId: string, projectId: string | null): Promise<{ project: { lat: number; lon: number } | null; workspaceTimeZone: string }> {
    const row = await db.selectFrom('workspaces as w').leftJoin('projects as p', (join) => join.onRef('p.workspace_id', '=', 'w.id').on('p.id', '=', projectId))
      .select(['p.lat', 'p.lon', 'w.time_zone']).where('w.id', '=', workspaceId).executeTakeFirstOrThrow();
    return { project: row.lat === null || row.lon === null ? null : { lat: row.lat, lon: row.lon }, workspaceTimeZone: row.time_zone };
  }

  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('photos').where('id', '=', id).execute();
  }

  /** Photos pending for longer than `olderThan` (their job may have been lost). */
  stalePending(db: Executor, olderThan: Date, limit: number): Promise<{ id: string }[]> {
    return db.selectFrom('photos').select('id').where('processing_status', '=', 'pending').where('created_at', '<', olderThan)
      .orderBy('created_at').limit(limit).execute();
  }
}
