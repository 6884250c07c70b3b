import { sql, type SqlBool, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { searchPage, substringMatch } from '../../db/substring-match.ts';
import type { Database } from '../../db/schema.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import { nameKey, searchByName, type TagListCriteria } from './tags.search.ts';
import type { TagRow, TagSummary } from './tags.views.ts';

export { nameKey, type TagListCriteria };

/** The unique index that makes names unique per workspace regardless of case (006_collaboration.sql). */
export const TAG_NAME_INDEX = 'tags_name_per_workspace';

const tagsAggregate = (link: 'project_tags' | 'photo_tags', column: 'project_id' | 'photo_id', ref: string) =>
  sql<TagSummary[]>`coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) order by ${nameKey}, t.id)
    from ${sql.table(link)} l join tags t on t.id = l.tag_id where l.${sql.ref(column)} = ${sql.ref(ref)}), '[]'::json)`;

/** The tags of the project whose id column is `ref`, as one correlated aggregate (an index scan of the link's primary key). */
export const projectTagsOf = (ref: string) => tagsAggregate('project_tags', 'project_id', ref);

/** Only rows that carry the tag: `exists` over the link's (tag_id, object id) index. */
export const hasProjectTag = (ref: string, tagId: string) =>
  sql<SqlBool>`exists (select 1 from project_tags ft where ft.project_id = ${sql.ref(ref)} and ft.tag_id = ${tagId})`;

export const hasPhotoTag = (ref: string, tagId: string) =>
  sql<SqlBool>`exists (select 1 from photo_tags ft where ft.photo_id = ${sql.ref(ref)} and ft.tag_id = ${tagId})`;


/**
 * Tags and their links to projects and photos. Lock order, kept by every caller so that no two
 * writers deadlock: the tag row first (key-share to apply it, update to rename or delete it),
 * then project and photo rows.
 */
export class TagsRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<TagRow | undefined> {
    return db.selectFrom('tags').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  /** The workspace's tags among `ids`, in no particular order, in one statement. */
  getMany(db: Executor, workspaceId: string, ids: readonly string[]): Promise<TagRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.selectFrom('tags').selectAll().where('workspace_id', '=', workspaceId).where(sql<SqlBool>`id = any(${ids}::text[])`).execute();
  }

  /** The tag, locked against other renames, deletes and applications until the transaction ends. */
  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<TagRow | undefined> {
    return db.selectFrom('tags').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /**
   * The workspace's tags among `ids`, sorted by name, each locked (key share) so it cannot be
   * deleted before the caller's links to it are written; renames are held back too.
   */
  lockForApplying(db: Executor, workspaceId: string, ids: readonly string[]): Promise<TagSummary[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.selectFrom('tags as t').select(['t.id', 't.name', 't.color'])
      .where('t.workspace_id', '=', workspaceId).where('t.id', 'in', ids)
      .orderBy(nameKey).orderBy('t.id').forKeyShare().execute();
  }

  /** Another tag of the workspace whose name equals `name` regardless of case. */
  findByName(db: Executor, workspaceId: string, name: string): Promise<TagRow | undefined> {
    return db.selectFrom('tags').selectAll().where('workspace_id', '=', workspaceId)
      .where(sql<SqlBool>`lower(name) = lower(${name})`).executeTakeFirst();
  }

  /** A page of tags; with `q`, by name in the tries of searchByName, newest first in those of searchPage. */
  list(db: Executor, c: TagListCriteria): Promise<(TagRow & { name_key: string })[]> {
    let rows = db.selectFrom('tags as t').selectAll('t').where('t.workspace_id', '=', c.workspaceId);
    if (c.after && c.sort === 'name') rows = rows.where(sql<SqlBool>`(${nameKey}, t.id) > (${c.after.nameKey}, ${c.after.id})`);
    if (c.after && c.sort !== 'name') rows = rows.where('t.id', '<', c.after.id);
    const inOrder = <Q extends typeof rows>(q: Q) => (c.sort === 'name' ? q.orderBy(nameKey).orderBy('t.id') : q.orderBy('t.id', 'desc')) as Q;
    const page = (q: typeof rows) => inOrder(q).select(sql<string>`lower(t.name)`.as('name_key')).limit(c.limit + 1).execute();
    if (c.q === undefined || c.q === '') return page(rows);
    const q = c.q;
    if (c.sort === 'name') return searchByName(db, c, q);
    return searchPage(c.limit,
      (n) => page(db.selectFrom(inOrder(rows).limit(n).as('t')).selectAll('t').where(substringMatch(sql<string>`t.name`, q, 'row'))),
      () => page(db.selectFrom(rows.where(substringMatch(sql<string>`t.name`, q)).offset(0).as('t')).selectAll('t')));
  }

  /** The insert of a new tag, for the caller to run in one statement with its event. */
  insertQuery(db: Executor, row: TagRow) {
    return db.insertInto('tags').values(row);
  }

  /** Applies the changes and moves updated_at forward (at least 1 ms). */
  update(db: Executor, id: string, changes: UpdateObject<Database, 'tags'>): Promise<TagRow> {
    return db.updateTable('tags').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  /** Deletes the tag; the foreign keys take it off every project and photo. */
  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('tags').where('id', '=', id).execute();
  }

  /**
   * Moves updated_at of every project and photo carrying the tag (their `tags` are about to read
   * differently), in one statement, so their ETags and `updated_since` stay truthful.
   */
  async touchTagged(db: Executor, tagId: string): Promise<{ projects: number; photos: number }> {
    const { rows } = await sql<{ projects: number; photos: number }>`
      with p as (update projects set updated_at = ${bumpUpdatedAt} where id in (select project_id from project_tags where tag_id = ${tagId}) returning 1),
           ph as (update photos set updated_at = ${bumpUpdatedAt} where id in (select photo_id from photo_tags where tag_id = ${tagId}) returning 1)
      select (select count(*) from p)::int as projects, (select count(*) from ph)::int as photos`.execute(db);
    return rows[0]!;
  }

  /** True when the tag was applied now, false when the project already had it. */
  async applyToProject(db: Executor, link: { projectId: string; tagId: string; workspaceId: string }): Promise<boolean> {
    const added = await db.insertInto('project_tags').values({ project_id: link.projectId, tag_id: link.tagId, workspace_id: link.workspaceId })
      .onConflict((oc) => oc.columns(['project_id', 'tag_id']).doNothing()).returning('tag_id').executeTakeFirst();
    return added !== undefined;
  }

  /** True when the tag was removed now, false when the project did not have it. */
  async removeFromProject(db: Executor, projectId: string, tagId: string): Promise<boolean> {
    const removed = await db.deleteFrom('project_tags').where('project_id', '=', projectId).where('tag_id', '=', tagId).executeTakeFirst();
    return removed.numDeletedRows > 0n;
  }

  /** Applies each tag to the photo; returns how many it did not have yet. */
  async applyToPhoto(db: Executor, link: { photoId: string; tagIds: readonly string[]; workspaceId: string }): Promise<number> {
    if (link.tagIds.length === 0) return 0;
    const added = await db.insertInto('photo_tags')
      .values(link.tagIds.map((tagId) => ({ photo_id: link.photoId, tag_id: tagId, workspace_id: link.workspaceId })))
      .onConflict((oc) => oc.columns(['photo_id', 'tag_id']).doNothing()).returning('tag_id').execute();
    return added.length;
  }

  async removeFromPhoto(db: Executor, photoId: string, tagId: string): Promise<boolean> {
    const removed = await db.deleteFrom('photo_tags').where('photo_id', '=', photoId).where('tag_id', '=', tagId).executeTakeFirst();
    return removed.numDeletedRows > 0n;
  }
}
