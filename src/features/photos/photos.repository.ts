import { sql, type Insertable, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { Database, PhotosTable } from '../../db/schema.ts';
import { hasPhotoTag, photoTagsOf } from '../tags/tags.repository.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import { mediaListConditions, mediaListOrder, type MediaListCriteria } from './media.list.ts';
import type { PhotoRow } from './photos.views.ts';

export type { BoundingBox } from './media.list.ts';

export interface PhotoListCriteria extends MediaListCriteria {
  /** Only photos carrying this tag. */
  tagId?: string;
}

/** The tags of each photo read, in the same statement as the row. */
const tags = (ref: string) => photoTagsOf(ref).as('tags');

export class PhotosRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<PhotoRow | undefined> {
    return db.selectFrom('photos').selectAll().select(tags('photos.id')).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<PhotoRow | undefined> {
    return db.selectFrom('photos').selectAll().select(tags('photos.id')).where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** For jobs, which act on ids they were given (no caller, no workspace). */
  getById(db: Executor, id: string, lock = false): Promise<PhotoRow | undefined> {
    let q = db.selectFrom('photos').selectAll().select(tags('photos.id')).where('id', '=', id);
    if (lock) q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /** A new photo has no tags yet: the caller applies any (TagsRepository.applyToPhoto) and sets `tags`. */
  insert(db: Executor, row: Insertable<PhotosTable>): Promise<PhotoRow> {
    return db.insertInto('photos').values(row).returningAll().returning(sql<[]>`'[]'::json`.as('tags')).executeTakeFirstOrThrow();
  }

  /** One query per page: filters, visibility, the keyset and the tag aggregate together. */
  list(db: Executor, c: PhotoListCriteria): Promise<PhotoRow[]> {
    let q = db.selectFrom('photos as ph').selectAll('ph').select(tags('ph.id'));
    for (const condition of mediaListConditions('ph', c)) q = q.where(condition);
    if (c.tagId !== undefined) q = q.where(hasPhotoTag('ph.id', c.tagId));
    return q.orderBy(mediaListOrder('ph', c.sort)).limit(c.limit + 1).execute();
  }

  /** Applies the changes and moves updated_at forward (at least 1 ms). */
  update(db: Executor, id: string, changes: UpdateObject<Database, 'photos'>): Promise<PhotoRow> {
    return db.updateTable('photos').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id)
      .returningAll().returning(tags('photos.id')).executeTakeFirstOrThrow();
  }

  /** The processing result, written only while the photo is still pending (a second run writes nothing). */
  finishProcessing(db: Executor, id: string, changes: UpdateObject<Database, 'photos'>): Promise<PhotoRow | undefined> {
    return db.updateTable('photos').set({ ...changes, processed_at: sql<Date>`now()`, updated_at: bumpUpdatedAt })
      .where('id', '=', id).where('processing_status', '=', 'pending')
      .returningAll().returning(tags('photos.id')).executeTakeFirst();
  }

  /** Processed photos whose EXIF time was read before migration 014 (source `exif`, no zone yet). */
  legacyExifTimes(db: Executor, limit: number): Promise<{ id: string }[]> {
    return db.selectFrom('photos').select('id').where('captured_at_source', '=', 'exif').where('captured_at_time_zone', 'is', null)
      .orderBy('id').limit(limit).execute();
  }

  /** What a photo's time zone falls back to: its project's site, then the workspace's time zone. */
  async placeFallbacks(db: Executor, projectId: string): Promise<{ project: { lat: number; lon: number } | null; workspaceTimeZone: string }> {
    const row = await db.selectFrom('projects as p').innerJoin('workspaces as w', 'w.id', 'p.workspace_id')
      .select(['p.lat', 'p.lon', 'w.time_zone']).where('p.id', '=', projectId).executeTakeFirstOrThrow();
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
