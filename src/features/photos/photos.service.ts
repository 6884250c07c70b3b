import type { Config } from '../../config.ts';
import type { Db, Executor, Tx } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound, unprocessable } from '../../http/errors.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import type { PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import { enqueue } from '../../jobs/enqueue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { BlobGarbage } from '../../storage/garbage.ts';
import { assertMay } from '../access/permissions.ts';
import { mediaChangesOf } from './media.fields.ts';
import { mediaListCriteria, mediaPage } from './media.list.ts';
import type { EventType } from '../events/event-types.ts';
import type { EventLog } from '../events/events.log.ts';
import { ProjectAccess } from '../projects/projects.access.ts';
import { TagsRepository } from '../tags/tags.repository.ts';
import type { AnnotationShape } from './photos.annotations.ts';
import type { ReceivedPhoto } from './photos.intake.ts';
import { PhotosRepository, type PhotoListCriteria } from './photos.repository.ts';
import type { PhotoAssigner, PhotoAssignmentView, PhotoListFilters, PhotoPatchInput } from './photos.schemas.ts';
import { timeAfterMove } from './photos.times.ts';
import { toPhotoView, toPhotoViews, urlSignerFor, type PhotoRow, type PhotoView, type SignUrl } from './photos.views.ts';

type PhotoEvent = Extract<EventType, `photo.${string}`>;

export const PROCESS_PHOTO = 'process_photo';
export const RENDER_ANNOTATIONS = 'render_photo_annotations';

/** URLs inside events live longer than those in responses: a delivery may be retried for hours. */
export const EVENT_URL_TTL_SECONDS = 24 * 3600;

/**
 * Photos: upload (multipart or by URL), the list and the single photo, edits, annotations and
 * deletion. Access follows the project (projects.access.ts) and, for changes, the photo's
 * creator: restricted users change only their own photos (docs/roles.md). Variants are made by
 * the `process_photo` job (photos.jobs.ts), queued in the transaction that records the upload.
 */
export class PhotosService {
  private readonly photos = new PhotosRepository();
  private readonly access = new ProjectAccess();
  private readonly tags = new TagsRepository();
  private readonly garbage: BlobGarbage;
  readonly sign: SignUrl;
  readonly signForEvents: SignUrl;

  constructor(private readonly db: Db, private readonly events: EventLog, private readonly blobs: BlobStore, config: Config) {
    this.sign = urlSignerFor(blobs, config.media.urlTtlSeconds);
    this.signForEvents = urlSignerFor(blobs, Math.max(config.media.urlTtlSeconds, EVENT_URL_TTL_SECONDS));
    this.garbage = new BlobGarbage(blobs);
  }

  /** 404/403 before a byte of the upload is read. Without a project (POST /v1/photos) anyone may upload. */
  async checkCanUpload(actor: Actor, projectId: string | null): Promise<void> {
    if (projectId !== null) await this.access.requireProject(this.db, actor, projectId, 'contribute');
  }

  /**
   * Records a received upload as a pending photo and queues its processing, in one transaction
   * that also holds the project (so it cannot be deleted in between). If anything refuses the
   * upload now, the stored object is removed. Without a project the photo starts unfiled: the
   * processing job files it by its position, if it can (photos.filing.ts).
   */
  async create(actor: Actor, projectId: string | null, received: ReceivedPhoto): Promise<PhotoView> {
    const { stored, fields } = received;
    try {
      const row = await this.db.transaction().execute(async (tx) => {
        // The tags are locked before the project (the lock order in tags.repository.ts).
        const tagIds = fields.tagIds ?? [];
        const tags = await this.tags.lockForApplying(tx, actor.workspaceId, tagIds);
        const project = projectId === null ? null : await this.access.requireProject(tx, actor, projectId, 'contribute', 'share');
        const unknown = tagIds.find((id) => !tags.some((tag) => tag.id === id));
        if (unknown !== undefined) {
          unprocessable('tag_not_found', `No tag ${unknown} in this workspace.`, [{ path: 'body.tag_ids', message: `${unknown} names no tag of the workspace` }]);
        }
        const now = new Date();
        const photo = await this.photos.insert(tx, {
          id: newId('photo'),
          workspace_id: actor.workspaceId,
          project_id: project?.id ?? null,
          creator_id: actor.userId,
          blob_key: stored.key,
          content_type: stored.contentType,
          byte_size: stored.byteSize,
          sha256: stored.sha256,
          caption: fields.caption ?? null,
          captured_at: fields.capturedAt ?? now,
          captured_at_source: fields.capturedAt ? 'client' : 'upload',
          lat: fields.coordinates?.lat ?? null,
          lon: fields.coordinates?.lon ?? null,
          altitude: fields.coordinates?.altitude ?? null,
          coordinates_source: fields.coordinates ? 'client' : null,
          source_url: received.sourceUrl,
          created_at: now,
          updated_at: now,
        });
        await this.tags.applyToPhoto(tx, { photoId: photo.id, tagIds: tags.map((tag) => tag.id), workspaceId: actor.workspaceId });
        const inserted: PhotoRow = { ...photo, tags };
        await enqueue(tx, PROCESS_PHOTO, { photo_id: inserted.id }, { jobKey: `photo:${inserted.id}` });
        return inserted;
      });
      return await toPhotoView(row, this.sign);
    } catch (err) {
      await this.blobs.delete(stored.key).catch(() => undefined);
      throw err;
    }
  }

  async list(actor: Actor, filters: PhotoListFilters & { limit: number }, projectId?: string): Promise<PageOf<PhotoView>> {
    if (projectId !== undefined) await this.access.requireProject(this.db, actor, projectId, 'view');
    // Unfiled photos are seen by their uploader and by every role but restricted (visibleTo).
    const unfiled = projectId === undefined && filters.project_id === 'none';
    const criteria: PhotoListCriteria = {
      ...mediaListCriteria({
        workspaceId: actor.workspaceId, visibleProjects: null, projectId: unfiled ? undefined : projectId ?? filters.project_id,
      }, filters),
      tagId: filters.tag_id,
      unfiled,
      visibleTo: this.visibleTo(actor),
    };
    const page = mediaPage(await this.photos.list(this.db, criteria), criteria);
    return { ...page, data: await toPhotoViews(page.data, this.sign) };
  }

  async get(actor: Actor, id: string): Promise<PhotoView> {
    return toPhotoView(await this.photo(this.db, actor, id, 'view'), this.sign);
  }

  /**
   * The photos among `ids` that the caller may see, each as `get` returns it, in no particular
   * order (the others are left out): sync's read of a page, one statement instead of one `get` each.
   */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<PhotoView[]> {
    const rows = await this.photos.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('photo', id)), this.visibleTo(actor));
    return toPhotoViews(rows, this.sign);
  }

  /** For restricted users: photos of the projects they see and the unfiled ones they uploaded (null: all of the workspace). */
  private visibleTo(actor: Actor): PhotoListCriteria['visibleTo'] {
    const visibleProjects = this.access.visibleProjectIds(this.db, actor);
    return visibleProjects === null ? null : { projects: visibleProjects, userId: actor.userId };
  }

  /**
   * JSON merge patch of caption, time and coordinates (a value set here is never replaced by EXIF),
   * and of `project_id`: filing an unfiled photo or moving a filed one, for whoever may change the
   * photo and can see the project it goes to (photo.assigned, by "user").
   */
  async update(actor: Actor, id: string, patch: PhotoPatchInput, ifMatch: IfMatch): Promise<PhotoView> {
    return this.db.transaction().execute(async (tx) => {
      const photo = await this.photo(tx, actor, id, 'change', true);
      checkIfMatch(ifMatch, viewVersion(photo));
      const { project_id: targetId, ...fields } = patch;
      const target = targetId === undefined || targetId === photo.project_id ? null
        : await this.access.requireProject(tx, actor, targetId, 'contribute', 'share');
      const changes = mediaChangesOf(photo, fields);
      if (Object.keys(changes).length === 0 && target === null) return toPhotoView(photo, this.sign);
      // A new position (or, without one, a new project) is a new place: the zone follows it, and an EXIF wall-clock time is read again in it.
      const position = changes.lat === undefined ? (photo.lat === null || photo.lon === null ? null : { lat: photo.lat, lon: photo.lon })
        : changes.lat == null || changes.lon == null ? null : { lat: changes.lat, lon: changes.lon };
      const moved = changes.lat === undefined && target === null ? null : timeAfterMove(
        { captured_at: changes.captured_at ?? photo.captured_at, captured_at_source: changes.captured_at_source ?? photo.captured_at_source, captured_at_time_zone: photo.captured_at_time_zone },
        { photo: position, ...await this.photos.placeFallbacks(tx, photo.workspace_id, target?.id ?? photo.project_id) },
      );
      const row = await this.photos.update(tx, photo.id, { ...changes, ...moved, ...(target ? { project_id: target.id } : {}) });
      if (Object.keys(changes).length > 0) await this.emitChange(tx, 'photo.updated', row);
      if (target) await emitAssigned(this.events, tx, row, { previousProjectId: photo.project_id, by: 'user', userId: actor.userId }, this.signForEvents);
      return toPhotoView(row, this.sign);
    });
  }

  /** Deletes the photo, then its blobs (original and every variant). */
  async remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    const photo = await this.db.transaction().execute(async (tx) => {
      const row = await this.photo(tx, actor, id, 'change', true);
      checkIfMatch(ifMatch, viewVersion(row));
      await this.emitChange(tx, 'photo.deleted', row);
      await this.photos.delete(tx, row.id); // the trigger records its blobs in blob_garbage
      await BlobGarbage.queueCollection(tx);
      return row;
    });
    // Right away, so the URLs stop working with the response; the job retries what fails here.
    await this.garbage.collect(this.db, [photo.blob_key]).catch(() => undefined);
  }

  /**
   * Replaces the photo's annotations. The `annotated` variant is re-rendered by a job, which emits
   * photo.updated when it is ready; an empty list removes the variant at once (and emits then).
   */
  async setAnnotations(actor: Actor, id: string, shapes: AnnotationShape[], ifMatch: IfMatch): Promise<PhotoView> {
    const { row, removedKey } = await this.db.transaction().execute(async (tx) => {
      const photo = await this.photo(tx, actor, id, 'change', true);
      checkIfMatch(ifMatch, viewVersion(photo));
      const version = photo.annotations_version + 1;
      if (shapes.length === 0) {
        const { annotated, ...rest } = photo.variants;
        if (photo.annotations.length === 0 && !annotated) return { row: photo, removedKey: null };
        const updated = await this.photos.update(tx, photo.id, { annotations: '[]', annotations_version: version, variants: JSON.stringify(rest) });
        await this.emitChange(tx, 'photo.updated', updated);
        return { row: updated, removedKey: annotated?.key ?? null };
      }
      const updated = await this.photos.update(tx, photo.id, { annotations: JSON.stringify(shapes), annotations_version: version });
      if (updated.processing_status === 'processed') {
        await enqueue(tx, RENDER_ANNOTATIONS, { photo_id: photo.id, version }, { jobKey: `annotate:${photo.id}` });
      }
      return { row: updated, removedKey: null };
    });
    if (removedKey) await this.blobs.delete(removedKey).catch(() => undefined);
    return toPhotoView(row, this.sign);
  }

  /**
   * Idempotent; tagging follows `media.change` (restricted users only their own photos). The tag
   * is locked before the photo (the lock order in tags.repository.ts).
   */
  async applyTag(actor: Actor, id: string, tagId: string): Promise<PhotoView> {
    return this.db.transaction().execute(async (tx) => {
      const [tag] = isId('tag', tagId) ? await this.tags.lockForApplying(tx, actor.workspaceId, [tagId]) : [];
      const photo = await this.photo(tx, actor, id, 'change', true);
      if (!tag) return notFound('tag', tagId);
      const added = await this.tags.applyToPhoto(tx, { photoId: photo.id, tagIds: [tag.id], workspaceId: actor.workspaceId });
      if (added === 0) return toPhotoView(photo, this.sign);
      return this.emitChange(tx, 'photo.updated', await this.photos.update(tx, photo.id, {}));
    });
  }

  /** Idempotent; only an actual removal moves updated_at and emits photo.updated. */
  async removeTag(actor: Actor, id: string, tagId: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const photo = await this.photo(tx, actor, id, 'change', true);
      const tag = isId('tag', tagId) ? await this.tags.get(tx, actor.workspaceId, tagId) : undefined;
      if (!tag) return notFound('tag', tagId);
      if (await this.tags.removeFromPhoto(tx, photo.id, tag.id)) {
        await this.emitChange(tx, 'photo.updated', await this.photos.update(tx, photo.id, {}));
      }
    });
  }

  /** Records a change in the event log, inside the change's transaction. */
  private async emitChange(tx: Tx, event: PhotoEvent, row: PhotoRow): Promise<PhotoView> {
    await this.events.emit(tx, { workspaceId: row.workspace_id, event, projectId: row.project_id, data: await toPhotoView(row, this.signForEvents) });
    return toPhotoView(row, this.sign);
  }

  /**
   * The photo when the actor may `view` it (they can see its project) or `change` it (edit,
   * annotate, delete: restricted users only their own photos); 404 / 403 otherwise.
   */
  private async photo(db: Executor, actor: Actor, id: string, action: 'view' | 'change', lock = false): Promise<PhotoRow> {
    const row = !isId('photo', id) ? undefined
      : lock ? await this.photos.getForUpdate(db, actor.workspaceId, id)
      : await this.photos.get(db, actor.workspaceId, id);
    if (!row) return notFound('photo', id);
    if (row.project_id !== null) await this.access.requireProjectOf(db, actor, row.project_id, { kind: 'photo', id });
    // An unfiled photo: restricted users see only their own uploads (docs/photos.md, "Photos that file themselves").
    else if (actor.role === 'restricted' && row.creator_id !== actor.userId) return notFound('photo', id);
    if (action === 'change') assertMay(actor, 'media.change', row.creator_id);
    return row;
  }
}

const viewVersion = (p: PhotoRow) => ({ id: p.id, updated_at: p.updated_at.toISOString() });

/**
 * photo.assigned, in the transaction that filed or moved the photo: `data` is the photo with where
 * it went, where it was, and what decided (docs/events.md).
 */
export async function emitAssigned(
  events: EventLog, tx: Tx, row: PhotoRow, how: { previousProjectId: string | null; by: PhotoAssigner; userId: string | null }, sign: SignUrl,
): Promise<void> {
  const data: PhotoAssignmentView = {
    photo: await toPhotoView(row, sign), project_id: row.project_id!, previous_project_id: how.previousProjectId, assigned_by: how.by, user_id: how.userId,
  };
  await events.emit(tx, { workspaceId: row.workspace_id, event: 'photo.assigned', projectId: row.project_id, data });
}
