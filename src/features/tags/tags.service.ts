import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import { assertMay } from '../access/permissions.ts';
import type { EventLog } from '../events/events.log.ts';
import { TAG_NAME_INDEX, TagsRepository, type TagListCriteria } from './tags.repository.ts';
import { DEFAULT_TAG_COLOR, type TagCreateInput, type TagListFilters, type TagPatchInput } from './tags.schemas.ts';
import { toTagView, type TagRow, type TagView } from './tags.views.ts';

const isNameTaken = (err: unknown) => {
  const e = err as { code?: string; constraint?: string };
  return e.code === '23505' && e.constraint === TAG_NAME_INDEX;
};

/**
 * The workspace's tags: everyone reads them; who creates, renames, recolours and deletes them
 * is the `tag.*` rows of the permission table (features/access/permissions.ts). Applying a tag
 * follows the object it goes on (ProjectsService / PhotosService `applyTag`).
 *
 * A rename, recolour or delete changes how every tagged project and photo reads: it moves their
 * updated_at in one statement (ETags and `updated_since` stay truthful) and emits one
 * `tag.updated` / `tag.deleted`, not a project.updated / photo.updated per object (see
 * docs/tags.md for why).
 */
export class TagsService {
  private readonly tags = new TagsRepository();

  constructor(private readonly db: Db, private readonly events: EventLog) {}

  async list(actor: Actor, filters: TagListFilters & { limit: number }): Promise<PageOf<TagView>> {
    const sort = filters.sort ?? 'name';
    const criteria: TagListCriteria = { workspaceId: actor.workspaceId, q: filters.q, sort, after: null, limit: filters.limit };
    if (sort === 'name') {
      const after = decodeCursor(filters.cursor, sort, 2, ([key, id]) => typeof key === 'string' && typeof id === 'string');
      if (after) criteria.after = { nameKey: after[0] as string, id: after[1] as string };
      const rows = await this.tags.list(this.db, criteria);
      return toPage(rows, filters.limit, sort, (t) => [t.name_key, t.id], toTagView);
    }
    const after = decodeCursor(filters.cursor, sort, 1, ([id]) => typeof id === 'string');
    if (after) criteria.after = { id: after[0] as string, nameKey: null };
    return toPage(await this.tags.list(this.db, criteria), filters.limit, sort, (t) => [t.id], toTagView);
  }

  async get(actor: Actor, id: string): Promise<TagView> {
    const tag = (isId('tag', id) && await this.tags.get(this.db, actor.workspaceId, id)) || notFound('tag', id);
    return toTagView(tag);
  }

  /** The tags among `ids`, each as `get` returns it, in no particular order (sync's read of a page, one statement). */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<TagView[]> {
    return (await this.tags.getMany(this.db, actor.workspaceId, ids.filter((id) => isId('tag', id)))).map(toTagView);
  }

  /** The tag and its event go in as one statement; a name taken regardless of case is a 409 naming the tag that has it. */
  async create(actor: Actor, input: TagCreateInput): Promise<TagView> {
    assertMay(actor, 'tag.create');
    const now = new Date();
    const row: TagRow = {
      id: newId('tag'),
      workspace_id: actor.workspaceId,
      name: input.name.trim(),
      color: (input.color ?? DEFAULT_TAG_COLOR).toLowerCase(),
      created_by: actor.userId,
      created_at: now,
      updated_at: now,
    };
    const view = toTagView(row);
    try {
      await this.events.emit(this.db, {
        workspaceId: row.workspace_id, event: 'tag.created', projectId: null, data: view,
        alongWith: this.tags.insertQuery(this.db, row),
      });
    } catch (err) {
      if (isNameTaken(err)) await this.nameTaken(actor, row.name);
      throw err;
    }
    return view;
  }

  /** Merge patch of name and colour; a patch that changes nothing changes nothing (no event, same ETag). */
  async update(actor: Actor, id: string, patch: TagPatchInput, ifMatch: IfMatch): Promise<TagView> {
    if (!isId('tag', id)) notFound('tag', id);
    try {
      return await this.db.transaction().execute(async (tx) => {
        const tag = await this.tags.getForUpdate(tx, actor.workspaceId, id) ?? notFound('tag', id);
        assertMay(actor, 'tag.edit');
        checkIfMatch(ifMatch, toTagView(tag));
        const changes: { name?: string; color?: string } = {};
        if (patch.name !== undefined && patch.name.trim() !== tag.name) changes.name = patch.name.trim();
        if (patch.color !== undefined && patch.color.toLowerCase() !== tag.color) changes.color = patch.color.toLowerCase();
        if (Object.keys(changes).length === 0) return toTagView(tag);
        const updated = await this.tags.update(tx, tag.id, changes);
        await this.tags.touchTagged(tx, tag.id);
        const view = toTagView(updated);
        await this.events.emit(tx, { workspaceId: tag.workspace_id, event: 'tag.updated', projectId: null, data: view });
        return view;
      });
    } catch (err) {
      if (isNameTaken(err)) await this.nameTaken(actor, patch.name!.trim());
      throw err;
    }
  }

  /** Deletes the tag, which takes it off every project and photo (their updated_at moves). */
  async remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    if (!isId('tag', id)) notFound('tag', id);
    await this.db.transaction().execute(async (tx) => {
      const tag = await this.tags.getForUpdate(tx, actor.workspaceId, id) ?? notFound('tag', id);
      assertMay(actor, 'tag.delete');
      checkIfMatch(ifMatch, toTagView(tag));
      await this.tags.touchTagged(tx, tag.id);
      await this.tags.delete(tx, tag.id);
      await this.events.emit(tx, { workspaceId: tag.workspace_id, event: 'tag.deleted', projectId: null, data: toTagView(tag) });
    });
  }

  /** 409 `tag_name_taken`, with the id of the tag that holds the name (so a client can use it instead). */
  private async nameTaken(actor: Actor, name: string): Promise<never> {
    const holder = await this.tags.findByName(this.db, actor.workspaceId, name);
    throw new ApiError(409, 'tag_name_taken', 'Conflict',
      `A tag named "${holder?.name ?? name}" already exists in this workspace${holder ? ` (${holder.id})` : ''}; names are unique regardless of case.`,
      holder ? { tag_id: holder.id } : {});
  }
}
