import type { Updateable } from 'kysely';
import type { Db, Executor, Tx } from '../../db/database.ts';
import type { ProjectsTable } from '../../db/schema.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound, unprocessable } from '../../http/errors.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isIsoTimestamp, parseRfc3339 } from '../../http/timestamps.ts';
import { isId, newId } from '../../ids.ts';
import type { EventType } from '../events/event-types.ts';
import type { EventLog } from '../events/events.log.ts';
import { TagsRepository } from '../tags/tags.repository.ts';
import { UsersRepository } from '../users/users.repository.ts';
import { toUserView, type UserView } from '../users/users.views.ts';
import { accessFactsOf, assertProjectAccess, projectScopeOf, type ProjectAction } from './projects.access.ts';
import { checkGeofence, geofenceColumns } from './projects.geofence.ts';
import { ProjectsRepository, type ProjectListCriteria } from './projects.repository.ts';
import {
  ADDRESS_FIELDS,
  type AddressInputValue,
  type ProjectCreateInput,
  type ProjectListFilters,
  type ProjectMemberListQueryValue,
  type ProjectPatchInput,
} from './projects.schemas.ts';
import { toProjectView, type ProjectRow, type ProjectView } from './projects.views.ts';

type Coordinates = { lat: number; lon: number } | null;

const addressColumns = (address: AddressInputValue | null | undefined) =>
  Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, address?.[f] ?? null])) as Record<typeof ADDRESS_FIELDS[number], string | null>;

type ProjectEvent = Extract<EventType, `project.${string}`>;

/**
 * Projects and their crews. Every method takes the caller first and checks access first:
 * a project the caller may not see is a 404, a forbidden action on a visible one a 403
 * (rules in projects.access.ts and docs/roles.md). Every actual change emits its event in
 * its own transaction; a write that changes nothing emits none.
 */
export class ProjectsService {
  private readonly projects = new ProjectsRepository();
  private readonly users = new UsersRepository();
  private readonly tags = new TagsRepository();

  /** `sign` turns the cover photo's thumbnail key into a signed URL (the photos feature's signer). */
  constructor(private readonly db: Db, private readonly events: EventLog, private readonly sign: (key: string) => Promise<string>) {}

  async list(actor: Actor, filters: ProjectListFilters & { limit: number }): Promise<PageOf<ProjectView>> {
    const sort = filters.sort ?? 'created_at';
    const criteria: ProjectListCriteria = {
      workspaceId: actor.workspaceId,
      visibleTo: projectScopeOf(actor),
      status: filters.status ?? 'active',
      q: filters.q,
      memberId: filters.member_id,
      tagId: filters.tag_id,
      updatedSince: filters.updated_since === undefined ? undefined : parseRfc3339(filters.updated_since, 'query.updated_since'),
      sort,
      after: null,
      limit: filters.limit,
    };
    if (sort === 'updated_at') {
      const after = decodeCursor(filters.cursor, sort, 2, ([at, id]) => isIsoTimestamp(at!) && typeof id === 'string');
      if (after) criteria.after = { updatedAt: new Date(after[0] as string), id: after[1] as string };
      const rows = await this.projects.list(this.db, criteria);
      return this.viewPage(toPage(rows, filters.limit, sort, (p) => [p.updated_at.toISOString(), p.id], (p) => p));
    }
    const after = decodeCursor(filters.cursor, sort, 1, ([id]) => typeof id === 'string');
    if (after) criteria.after = { id: after[0] as string, updatedAt: null };
    const rows = await this.projects.list(this.db, criteria);
    return this.viewPage(toPage(rows, filters.limit, sort, (p) => [p.id], (p) => p));
  }

  async get(actor: Actor, id: string): Promise<ProjectView> {
    return this.view(await this.project(this.db, actor, id, 'view'));
  }

  /**
   * The projects among `ids` that the caller may see, each as `get` returns it, in no particular
   * order (the others are left out): sync's read of a page, one statement instead of one `get` each.
   */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<ProjectView[]> {
    const rows = await this.projects.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('project', id)), projectScopeOf(actor));
    return Promise.all(rows.map((row) => this.view(row)));
  }

  /** Everyone may create projects; the caller is recorded as the creator (which is what lets restricted users see it). */
  async create(actor: Actor, input: ProjectCreateInput): Promise<ProjectView> {
    // Every value is set here (no column default is left to the database), so the view is known
    // before the insert, and the project and its event go in as one statement: no transaction.
    const now = new Date();
    const coordinates = input.coordinates ?? null;
    const geofence = input.geofence ?? null;
    if (geofence !== null) checkGeofence(geofence, coordinates);
    const row: ProjectRow = {
      id: newId('project'),
      workspace_id: actor.workspaceId,
      name: input.name.trim(),
      description: input.description ?? null,
      status: 'active',
      ...addressColumns(input.address),
      lat: coordinates?.lat ?? null,
      lon: coordinates?.lon ?? null,
      ...geofenceColumns(geofence, coordinates),
      geofence,
      cover_photo_id: null,
      cover_thumbnail_key: null,
      created_by: actor.userId,
      created_at: now,
      updated_at: now,
      archived_at: null,
      member_ids: [],
      tags: [],
    };
    const view = toProjectView(row);
    await this.events.emit(this.db, {
      workspaceId: row.workspace_id, event: 'project.created', projectId: row.id, data: view,
      alongWith: this.projects.insertQuery(this.db, row),
    });
    return view;
  }

  /** JSON merge patch; a patch that changes nothing leaves the project (and its ETag) as it was. */
  async update(actor: Actor, id: string, patch: ProjectPatchInput, ifMatch: IfMatch): Promise<ProjectView> {
    return this.db.transaction().execute(async (tx) => {
      const project = await this.project(tx, actor, id, 'edit', { lock: true });
      checkIfMatch(ifMatch, toProjectView(project));
      const changes = changesOf(project, patch);
      if (patch.cover_photo_id) await this.checkCoverPhoto(tx, project, patch.cover_photo_id);
      if (Object.keys(changes).length === 0) return this.view(project);
      return this.emitChange(tx, 'project.updated', await this.projects.update(tx, project.id, changes));
    });
  }

  async remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const project = await this.project(tx, actor, id, 'delete', { lock: true });
      checkIfMatch(ifMatch, toProjectView(project));
      await this.projects.delete(tx, project.id);
      await this.emitChange(tx, 'project.deleted', project);
    });
  }

  /** Idempotent: archiving an archived project returns it unchanged. */
  async archive(actor: Actor, id: string): Promise<ProjectView> {
    return this.db.transaction().execute(async (tx) => {
      const project = await this.project(tx, actor, id, 'edit', { lock: true });
      if (project.status === 'archived') return this.view(project);
      return this.emitChange(tx, 'project.archived', await this.projects.setStatus(tx, project.id, 'archived'));
    });
  }

  /** Idempotent: restoring an active project returns it unchanged. */
  async restore(actor: Actor, id: string): Promise<ProjectView> {
    return this.db.transaction().execute(async (tx) => {
      const project = await this.project(tx, actor, id, 'edit', { lock: true });
      if (project.status === 'active') return this.view(project);
      return this.emitChange(tx, 'project.restored', await this.projects.setStatus(tx, project.id, 'active'));
    });
  }

  async listMembers(actor: Actor, id: string, query: ProjectMemberListQueryValue & { limit: number }): Promise<PageOf<UserView>> {
    const project = await this.project(this.db, actor, id, 'view');
    const [after] = decodeCursor(query.cursor, 'id', 1, ([userId]) => typeof userId === 'string') ?? [null];
    const rows = await this.projects.listMembers(this.db, project.id, query.limit, after as string | null);
    return toPage(rows, query.limit, 'id', (u) => [u.id], toUserView);
  }

  /** Idempotent; only an actual addition moves the project's updated_at (and emits project.updated). */
  async addMember(actor: Actor, id: string, userId: string): Promise<UserView> {
    return this.db.transaction().execute(async (tx) => {
      const project = await this.project(tx, actor, id, 'manage_crew', { lock: true });
      const user = await this.workspaceUser(tx, actor, userId);
      if (user.status !== 'active') unprocessable('user_inactive', 'The user is deactivated; reactivate them before adding them to a crew.');
      const added = await this.projects.addMember(tx, { projectId: project.id, userId: user.id, workspaceId: actor.workspaceId, addedBy: actor.userId });
      if (added) await this.emitChange(tx, 'project.updated', await this.projects.update(tx, project.id, {}));
      return toUserView(user);
    });
  }

  /** Idempotent; only an actual removal moves the project's updated_at (and emits project.updated). */
  async removeMember(actor: Actor, id: string, userId: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const project = await this.project(tx, actor, id, 'manage_crew', { lock: true });
      const user = await this.workspaceUser(tx, actor, userId);
      if (await this.projects.removeMember(tx, project.id, user.id)) {
        await this.emitChange(tx, 'project.updated', await this.projects.update(tx, project.id, {}));
      }
    });
  }

  /**
   * Idempotent; applying follows the project's `edit` rule. The tag is locked before the project
   * (the lock order in tags.repository.ts), so a concurrent delete of the tag waits or goes first.
   */
  async applyTag(actor: Actor, id: string, tagId: string): Promise<ProjectView> {
    return this.db.transaction().execute(async (tx) => {
      const [tag] = isId('tag', tagId) ? await this.tags.lockForApplying(tx, actor.workspaceId, [tagId]) : [];
      const project = await this.project(tx, actor, id, 'edit', { lock: true });
      if (!tag) return notFound('tag', tagId);
      const added = await this.tags.applyToProject(tx, { projectId: project.id, tagId: tag.id, workspaceId: actor.workspaceId });
      if (!added) return this.view(project);
      return this.emitChange(tx, 'project.updated', await this.projects.update(tx, project.id, {}));
    });
  }

  /** Idempotent; only an actual removal moves updated_at and emits project.updated. */
  async removeTag(actor: Actor, id: string, tagId: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const project = await this.project(tx, actor, id, 'edit', { lock: true });
      const tag = isId('tag', tagId) ? await this.tags.get(tx, actor.workspaceId, tagId) : undefined;
      if (!tag) return notFound('tag', tagId);
      if (await this.tags.removeFromProject(tx, project.id, tag.id)) {
        await this.emitChange(tx, 'project.updated', await this.projects.update(tx, project.id, {}));
      }
    });
  }

  /** A project as the API returns it: its cover photo's thumbnail URL is signed now. */
  private async view(row: ProjectRow): Promise<ProjectView> {
    return toProjectView(row, row.cover_thumbnail_key === null ? null : await this.sign(row.cover_thumbnail_key));
  }

  /** Every cover of the page signed at once (none to wait for on a page without covers), then each view built without waiting. */
  private async viewPage(page: PageOf<ProjectRow>): Promise<PageOf<ProjectView>> {
    const covers = page.data.map((row) => row.cover_thumbnail_key);
    const urls = covers.some((key) => key !== null) ? await Promise.all(covers.map((key) => (key === null ? null : this.sign(key)))) : covers;
    return { ...page, data: page.data.map((row, i) => toProjectView(row, urls[i] ?? null)) };
  }

  /** A cover is a processed photo of the same project (its thumbnail is what lists show). */
  private async checkCoverPhoto(db: Executor, project: ProjectRow, photoId: string): Promise<void> {
    const photo = isId('photo', photoId)
      ? await db.selectFrom('photos').select(['project_id', 'processing_status']).where('id', '=', photoId)
        .where('workspace_id', '=', project.workspace_id).executeTakeFirst()
      : undefined;
    if (!photo || photo.project_id !== project.id) {
      unprocessable('invalid_cover_photo', `${photoId} is not a photo of this project.`, [{ path: 'body.cover_photo_id', message: 'must be a photo of this project' }]);
    }
    if (photo!.processing_status !== 'processed') {
      unprocessable('invalid_cover_photo', `${photoId} is ${photo!.processing_status}; a cover must be a processed photo.`, [{ path: 'body.cover_photo_id', message: 'must be a processed photo' }]);
    }
  }

  /** Records a change in the event log, inside the change's transaction; `data` is the project as the API returns it. */
  private async emitChange(tx: Tx, event: ProjectEvent, row: ProjectRow): Promise<ProjectView> {
    const view = await this.view(row);
    await this.events.emit(tx, { workspaceId: row.workspace_id, event, projectId: row.id, data: view });
    return view;
  }

  /** The project when the actor may do `action` on it; 404 when they cannot see it, 403 when they may not act. */
  private async project(db: Executor, actor: Actor, id: string, action: ProjectAction, options: { lock?: boolean } = {}): Promise<ProjectRow> {
    const row = !isId('project', id) ? undefined
      : options.lock ? await this.projects.getForUpdate(db, actor.workspaceId, id)
      : await this.projects.get(db, actor.workspaceId, id);
    if (!row) return notFound('project', id);
    assertProjectAccess(actor, accessFactsOf(row, actor), action);
    return row;
  }

  private async workspaceUser(db: Executor, actor: Actor, userId: string) {
    const user = isId('user', userId) ? await this.users.get(db, actor.workspaceId, userId) : undefined;
    return user ?? notFound('user', userId);
  }
}

/** The columns a merge patch actually changes (none when every given value equals the current one). */
function changesOf(project: ProjectRow, patch: ProjectPatchInput): Updateable<ProjectsTable> {
  const changes: Updateable<ProjectsTable> = {};
  if (patch.name !== undefined && patch.name.trim() !== project.name) changes.name = patch.name.trim();
  if (patch.description !== undefined && patch.description !== project.description) changes.description = patch.description;
  if (patch.address !== undefined) {
    for (const field of ADDRESS_FIELDS) {
      const value = patch.address === null ? null : patch.address[field];
      if (value !== undefined && value !== project[field]) changes[field] = value;
    }
  }
  if (patch.cover_photo_id !== undefined && patch.cover_photo_id !== project.cover_photo_id) changes.cover_photo_id = patch.cover_photo_id;
  if (patch.coordinates !== undefined) {
    const next: Coordinates = patch.coordinates;
    if ((next?.lat ?? null) !== project.lat || (next?.lon ?? null) !== project.lon) {
      changes.lat = next?.lat ?? null;
      changes.lon = next?.lon ?? null;
    }
  }
  return { ...changes, ...geofenceChanges(project, patch, changes) };
}

/**
 * The fence columns when the fence changes, or when the coordinates under a radius fence move
 * (its box moves with them); checked against the coordinates the project will have (422s).
 */
function geofenceChanges(project: ProjectRow, patch: ProjectPatchInput, changes: Updateable<ProjectsTable>): Updateable<ProjectsTable> {
  const fence = patch.geofence === undefined ? project.geofence : patch.geofence;
  const fenceChanged = patch.geofence !== undefined && JSON.stringify(patch.geofence) !== JSON.stringify(project.geofence);
  const moved = changes.lat !== undefined;
  if (!fenceChanged && !(moved && fence !== null && 'radius_m' in fence)) return {};
  const lat = moved ? changes.lat as number | null : project.lat;
  const lon = moved ? changes.lon as number | null : project.lon;
  const coordinates = lat === null || lon === null ? null : { lat, lon };
  if (fence !== null) checkGeofence(fence, coordinates);
  return geofenceColumns(fence, coordinates);
}
