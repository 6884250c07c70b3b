import type { Config } from '../../config.ts';
import type { Db, Executor, Tx } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound } from '../../http/errors.ts';
import { assertMay } from '../access/permissions.ts';
import { mediaChangesOf } from '../photos/media.fields.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import type { PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import { enqueue } from '../../jobs/enqueue.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { BlobGarbage } from '../../storage/garbage.ts';
import type { EventType } from '../events/event-types.ts';
import type { EventLog } from '../events/events.log.ts';
import { EVENT_URL_TTL_SECONDS } from '../photos/photos.service.ts';
import { mediaListCriteria, mediaPage } from '../photos/media.list.ts';
import { urlSignerFor, type SignUrl } from '../photos/photos.views.ts';
import { ProjectAccess } from '../projects/projects.access.ts';
import type { ReceivedVideo } from './videos.intake.ts';
import { VideosRepository } from './videos.repository.ts';
import type { VideoListFilters, VideoPatchInput } from './videos.schemas.ts';
import { toVideoView, toVideoViews, type VideoRow, type VideoView } from './videos.views.ts';

type VideoEvent = Extract<EventType, `video.${string}`>;

export const PROCESS_VIDEO = 'process_video';

/**
 * Videos: upload, the list and the single video, edits and deletion. Access follows the project
 * (projects.access.ts) and, for changes, the video's creator: restricted users change only their
 * own videos, as with photos (docs/roles.md). Probing and the poster frame are the
 * `process_video` job's (videos.jobs.ts), queued in the transaction that records the upload.
 */
export class VideosService {
  private readonly videos = new VideosRepository();
  private readonly access = new ProjectAccess();
  private readonly garbage: BlobGarbage;
  readonly sign: SignUrl;
  private readonly signForEvents: SignUrl;

  constructor(private readonly db: Db, private readonly events: EventLog, private readonly blobs: BlobStore, config: Config) {
    this.sign = urlSignerFor(blobs, config.media.urlTtlSeconds);
    this.signForEvents = urlSignerFor(blobs, Math.max(config.media.urlTtlSeconds, EVENT_URL_TTL_SECONDS));
    this.garbage = new BlobGarbage(blobs);
  }

  /** 404/403 before a byte of the upload is read. */
  async checkCanUpload(actor: Actor, projectId: string): Promise<void> {
    await this.access.requireProject(this.db, actor, projectId, 'contribute');
  }

  /**
   * Records a received upload as a pending video and queues its processing, in one transaction
   * that also holds the project (so it cannot be deleted in between). If anything refuses the
   * upload now, the stored object is removed.
   */
  async create(actor: Actor, projectId: string, received: ReceivedVideo): Promise<VideoView> {
    const { stored, fields } = received;
    try {
      const row = await this.db.transaction().execute(async (tx) => {
        const project = await this.access.requireProject(tx, actor, projectId, 'contribute', 'share');
        const now = new Date();
        const inserted = await this.videos.insert(tx, {
          id: newId('video'),
          workspace_id: actor.workspaceId,
          project_id: project.id,
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
          created_at: now,
          updated_at: now,
        });
        await enqueue(tx, PROCESS_VIDEO, { video_id: inserted.id }, { jobKey: `video:${inserted.id}` });
        return inserted;
      });
      return await toVideoView(row, this.sign);
    } catch (err) {
      await this.blobs.delete(stored.key).catch(() => undefined);
      throw err;
    }
  }

  async list(actor: Actor, filters: VideoListFilters & { limit: number }, projectId?: string): Promise<PageOf<VideoView>> {
    if (projectId !== undefined) await this.access.requireProject(this.db, actor, projectId, 'view');
    const criteria = mediaListCriteria({
      workspaceId: actor.workspaceId, visibleProjects: this.access.visibleProjectIds(this.db, actor), projectId: projectId ?? filters.project_id,
    }, filters);
    const page = mediaPage(await this.videos.list(this.db, criteria), criteria);
    return { ...page, data: await toVideoViews(page.data, this.sign) };
  }

  async get(actor: Actor, id: string): Promise<VideoView> {
    return toVideoView(await this.video(this.db, actor, id, 'view'), this.sign);
  }

  /**
   * The videos among `ids` that the caller may see, each as `get` returns it, in no particular
   * order (the others are left out): sync's read of a page, one statement instead of one `get` each.
   */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<VideoView[]> {
    const rows = await this.videos.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('video', id)), this.access.visibleProjectIds(this.db, actor));
    return toVideoViews(rows, this.sign);
  }

  /** JSON merge patch of caption, time and coordinates; a value set here is never replaced by the file's metadata. */
  async update(actor: Actor, id: string, patch: VideoPatchInput, ifMatch: IfMatch): Promise<VideoView> {
    return this.db.transaction().execute(async (tx) => {
      const video = await this.video(tx, actor, id, 'change', true);
      checkIfMatch(ifMatch, viewVersion(video));
      const changes = mediaChangesOf(video, patch);
      if (Object.keys(changes).length === 0) return toVideoView(video, this.sign);
      return this.emitChange(tx, 'video.updated', await this.videos.update(tx, video.id, changes));
    });
  }

  /** Deletes the video, then its blobs (the original and the poster). */
  async remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    const video = await this.db.transaction().execute(async (tx) => {
      const row = await this.video(tx, actor, id, 'change', true);
      checkIfMatch(ifMatch, viewVersion(row));
      await this.emitChange(tx, 'video.deleted', row);
      await this.videos.delete(tx, row.id); // the trigger records its blobs in blob_garbage
      await BlobGarbage.queueCollection(tx);
      return row;
    });
    // Right away, so the URLs stop working with the response; the job retries what fails here.
    await this.garbage.collect(this.db, [video.blob_key]).catch(() => undefined);
  }

  /** Records a change in the event log, inside the change's transaction. */
  private async emitChange(tx: Tx, event: VideoEvent, row: VideoRow): Promise<VideoView> {
    await this.events.emit(tx, { workspaceId: row.workspace_id, event, projectId: row.project_id, data: await toVideoView(row, this.signForEvents) });
    return toVideoView(row, this.sign);
  }

  /**
   * The video when the actor may `view` it (they can see its project) or `change` it (edit,
   * delete: restricted users only their own videos); 404 / 403 otherwise.
   */
  private async video(db: Executor, actor: Actor, id: string, action: 'view' | 'change', lock = false): Promise<VideoRow> {
    const row = !isId('video', id) ? undefined
      : lock ? await this.videos.getForUpdate(db, actor.workspaceId, id)
      : await this.videos.get(db, actor.workspaceId, id);
    if (!row) return notFound('video', id);
    await this.access.requireProjectOf(db, actor, row.project_id, { kind: 'video', id });
    if (action === 'change') assertMay(actor, 'media.change', row.creator_id);
    return row;
  }
}

const viewVersion = (v: VideoRow) => ({ id: v.id, updated_at: v.updated_at.toISOString() });

