import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { PhotoTimeSource, ReportSelection, StoredVariant } from '../../db/schema.ts';

/** A user as printed: their name, else their handle. */
export const userName = (alias: string) =>
  sql<string>`coalesce(nullif(trim(concat_ws(' ', ${sql.ref(`${alias}.first_name`)}, ${sql.ref(`${alias}.last_name`)})), ''), ${sql.ref(`${alias}.handle`)})`;

/**
 * The processed photos of the project that a selection names, on `photos as ph` (reports and
 * exports): the filters combine with AND, the tags with OR among themselves.
 */
export function inSelection(projectId: string, s: ReportSelection): Expression<SqlBool> {
  const where: RawBuilder<unknown>[] = [sql`ph.project_id = ${projectId}`, sql`ph.processing_status = 'processed'`];
  if (s.photo_ids) where.push(sql`ph.id = any(${s.photo_ids}::text[])`);
  if (s.captured_after) where.push(sql`ph.captured_at >= ${new Date(s.captured_after)}`);
  if (s.captured_before) where.push(sql`ph.captured_at < ${new Date(s.captured_before)}`);
  if (s.tag_ids) where.push(sql`exists (select 1 from photo_tags f where f.photo_id = ph.id and f.tag_id = any(${s.tag_ids}::text[]))`);
  return sql<SqlBool>`(${sql.join(where, sql` and `)})`;
}

export interface ReportHeader {
  projectName: string;
  address: string | null;
  workspaceName: string;
  /** The project's cover photo, when it has one that is processed. */
  coverPhoto: { id: string; variants: Record<string, StoredVariant> } | null;
  /** The project's site, and the workspace's zone: what the project's time zone is found from. */
  coordinates: { lat: number; lon: number } | null;
  workspaceTimeZone: string;
}

export interface ReportPhotoRow {
  id: string;
  capturedAt: Date;
  capturedAtSource: PhotoTimeSource;
  /** Where it was taken (null on photos processed before migration 014). */
  capturedAtTimeZone: string | null;
  caption: string | null;
  lat: number | null;
  lon: number | null;
  altitude: number | null;
  creatorName: string;
  variants: Record<string, StoredVariant>;
  tags: string[];
}

export interface ReportTaskRow {
  title: string;
  status: 'open' | 'completed';
  assigneeName: string | null;
  dueAt: Date | null;
  completedAt: Date | null;
  completedByName: string | null;
}

export interface ReportCommentRow {
  authorName: string;
  body: string;
  createdAt: Date;
  subjectType: 'project' | 'photo' | 'task';
  /** The photo's caption or the task's title, when there is one. */
  subjectLabel: string | null;
}

/** Everything a report prints, read with SQL only (tags, tasks and comments belong to other features). */
export class ReportContentRepository {
  async header(db: Executor, projectId: string): Promise<ReportHeader | undefined> {
    const row = await db.selectFrom('projects as p').innerJoin('workspaces as w', 'w.id', 'p.workspace_id')
      .leftJoin('photos as c', (join) => join.onRef('c.id', '=', 'p.cover_photo_id').on('c.processing_status', '=', 'processed'))
      .select(['p.name', 'p.street_address_1', 'p.street_address_2', 'p.city', 'p.state', 'p.postal_code', 'p.country', 'p.lat', 'p.lon', 'w.name as workspace_name', 'w.time_zone'])
      .select(['c.id as cover_id', 'c.variants as cover_variants'])
      .where('p.id', '=', projectId).executeTakeFirst();
    if (!row) return undefined;
    const cityLine = [row.postal_code, row.city, row.state].filter(Boolean).join(' ');
    const address = [row.street_address_1, row.street_address_2, cityLine, row.country].filter(Boolean).join(', ');
    const coverPhoto = row.cover_id && row.cover_variants ? { id: row.cover_id, variants: row.cover_variants } : null;
    return {
      projectName: row.name, address: address || null, workspaceName: row.workspace_name, coverPhoto,
      coordinates: row.lat === null || row.lon === null ? null : { lat: row.lat, lon: row.lon }, workspaceTimeZone: row.time_zone,
    };
  }

  async userName(db: Executor, userId: string): Promise<string> {
    const row = await db.selectFrom('users as u').select(userName('u').as('name')).where('u.id', '=', userId).executeTakeFirst();
    return row?.name ?? 'unknown';
  }

  /** Ids of `photoIds` that are not photos of the project (in the order given). */
  async photosOutside(db: Executor, projectId: string, photoIds: string[]): Promise<string[]> {
    if (photoIds.length === 0) return [];
    const found = await db.selectFrom('photos').select('id').where('project_id', '=', projectId).where('id', 'in', photoIds).execute();
    const inside = new Set(found.map((r) => r.id));
    return photoIds.filter((id) => !inside.has(id));
  }

  /** Ids of `tagIds` that are not tags of the workspace. */
  async unknownTags(db: Executor, workspaceId: string, tagIds: string[]): Promise<string[]> {
    if (tagIds.length === 0) return [];
    const found = await db.selectFrom('tags').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', tagIds).execute();
    const known = new Set(found.map((r) => r.id));
    return tagIds.filter((id) => !known.has(id));
  }

  /** The processed photos the selection names, in capture order, with their tags and creator (metadata only: no image bytes). */
  async photos(db: Executor, projectId: string, s: ReportSelection): Promise<ReportPhotoRow[]> {
    const q = db.selectFrom('photos as ph').innerJoin('users as u', 'u.id', 'ph.creator_id')
      .select(['ph.id', 'ph.captured_at', 'ph.captured_at_source', 'ph.captured_at_time_zone', 'ph.caption', 'ph.lat', 'ph.lon', 'ph.altitude', 'ph.variants', userName('u').as('creator_name')])
      .select(sql<string[]>`coalesce((select array_agg(t.name order by lower(t.name)) from photo_tags pt join tags t on t.id = pt.tag_id where pt.photo_id = ph.id), '{}')`.as('tags'))
      .where(inSelection(projectId, s));
    const rows = await q.orderBy('ph.captured_at').orderBy('ph.id').execute();
    return rows.map((r) => ({
      id: r.id, capturedAt: r.captured_at, capturedAtSource: r.captured_at_source, capturedAtTimeZone: r.captured_at_time_zone, caption: r.caption, lat: r.lat, lon: r.lon, altitude: r.altitude,
      creatorName: r.creator_name, variants: r.variants, tags: r.tags,
    }));
  }

  /** The project's tasks: open ones by due date, then completed ones by completion. */
  async tasks(db: Executor, projectId: string): Promise<ReportTaskRow[]> {
    const rows = await db.selectFrom('tasks as t')
      .leftJoin('users as a', 'a.id', 't.assignee_id')
      .leftJoin('users as c', 'c.id', 't.completed_by')
      .select(['t.title', 't.status', 't.due_at', 't.completed_at'])
      .select(sql<string | null>`case when a.id is null then null else ${userName('a')} end`.as('assignee_name'))
      .select(sql<string | null>`case when c.id is null then null else ${userName('c')} end`.as('completed_by_name'))
      .where('t.project_id', '=', projectId)
      .orderBy(sql`t.status = 'completed'`).orderBy(sql`coalesce(t.completed_at, t.due_at)`, sql`asc nulls last`).orderBy('t.created_at')
      .execute();
    return rows.map((r) => ({
      title: r.title, status: r.status, assigneeName: r.assignee_name, dueAt: r.due_at, completedAt: r.completed_at, completedByName: r.completed_by_name,
    }));
  }

  /** Comments on the project, on its tasks, and on the photos listed, oldest first. */
  async comments(db: Executor, projectId: string, photoIds: string[]): Promise<ReportCommentRow[]> {
    const rows = await db.selectFrom('comments as c').innerJoin('users as u', 'u.id', 'c.author_id')
      .leftJoin('photos as ph', 'ph.id', 'c.photo_id')
      .leftJoin('tasks as t', 't.id', 'c.task_id')
      .select(['c.body', 'c.created_at', 'c.subject_type', userName('u').as('author_name')])
      .select(sql<string | null>`coalesce(ph.caption, t.title)`.as('subject_label'))
      .where('c.project_id', '=', projectId)
      .where((eb) => eb.or([
        eb('c.subject_type', 'in', ['project', 'task']),
        ...(photoIds.length > 0 ? [eb('c.photo_id', 'in', photoIds)] : []),
      ]))
      .orderBy('c.created_at').orderBy('c.id')
      .execute();
    return rows.map((r) => ({ authorName: r.author_name, body: r.body, createdAt: r.created_at, subjectType: r.subject_type, subjectLabel: r.subject_label }));
  }
}
