import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { validationFailed } from '../../http/errors.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isIsoTimestamp, parseRfc3339 } from '../../http/timestamps.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';

export interface BoundingBox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** The filters, visibility, sort and keyset shared by the photo and video lists. */
export interface MediaListCriteria {
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

/**
 * The WHERE conditions of a media list on the table aliased `alias` (photos or videos): every
 * filter, visibility and the keyset after the previous page. A bbox with minLon > maxLon crosses
 * the antimeridian; rows without coordinates never match one.
 */
export function mediaListConditions(alias: string, c: MediaListCriteria): Expression<SqlBool>[] {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  const where: RawBuilder<SqlBool>[] = [sql<SqlBool>`${col('workspace_id')} = ${c.workspaceId}`];
  if (c.projectId !== undefined) where.push(sql<SqlBool>`${col('project_id')} = ${c.projectId}`);
  if (c.visibleProjects !== null) where.push(sql<SqlBool>`${col('project_id')} in (${c.visibleProjects})`);
  if (c.capturedAfter !== undefined) where.push(sql<SqlBool>`${col('captured_at')} >= ${c.capturedAfter}`);
  if (c.capturedBefore !== undefined) where.push(sql<SqlBool>`${col('captured_at')} < ${c.capturedBefore}`);
  if (c.creatorId !== undefined) where.push(sql<SqlBool>`${col('creator_id')} = ${c.creatorId}`);
  if (c.processingStatus !== undefined) where.push(sql<SqlBool>`${col('processing_status')} = ${c.processingStatus}`);
  if (c.bbox !== undefined) {
    const b = c.bbox;
    where.push(sql<SqlBool>`${col('lat')} between ${b.minLat} and ${b.maxLat}`);
    where.push(b.minLon <= b.maxLon
      ? sql<SqlBool>`${col('lon')} between ${b.minLon} and ${b.maxLon}`
      : sql<SqlBool>`(${col('lon')} >= ${b.minLon} or ${col('lon')} <= ${b.maxLon})`);
  }
  if (c.after) {
    where.push(c.sort === 'captured_at'
      ? sql<SqlBool>`(${col('captured_at')}, ${col('id')}) < (${c.after.capturedAt}, ${c.after.id})`
      : sql<SqlBool>`${col('id')} < ${c.after.id}`);
  }
  return where;
}

/** ORDER BY of a media list: newest upload first (ids sort by creation), or most recently taken first. */
export const mediaListOrder = (alias: string, sort: MediaListCriteria['sort']) => sort === 'captured_at'
  ? sql`${sql.ref(`${alias}.captured_at`)} desc, ${sql.ref(`${alias}.id`)} desc`
  : sql`${sql.ref(`${alias}.id`)} desc`;

/** The query parameters the photo and video lists share. */
export interface MediaListQuery {
  cursor?: string;
  limit: number;
  captured_after?: string;
  captured_before?: string;
  creator_id?: string;
  bbox?: string;
  processing_status?: MediaListCriteria['processingStatus'];
  sort?: MediaListCriteria['sort'];
}

/** Criteria from the query: times and the bbox parsed (400 naming the parameter), the cursor decoded for its sort. */
export function mediaListCriteria(
  scope: Pick<MediaListCriteria, 'workspaceId' | 'visibleProjects' | 'projectId'>, q: MediaListQuery,
): MediaListCriteria {
  const sort = q.sort ?? 'created_at';
  let after: MediaListCriteria['after'] = null;
  if (sort === 'captured_at') {
    const values = decodeCursor(q.cursor, sort, 2, ([at, id]) => isIsoTimestamp(at!) && typeof id === 'string');
    if (values) after = { capturedAt: new Date(values[0] as string), id: values[1] as string };
  } else {
    const values = decodeCursor(q.cursor, sort, 1, ([id]) => typeof id === 'string');
    if (values) after = { id: values[0] as string, capturedAt: null };
  }
  return {
    ...scope,
    capturedAfter: q.captured_after === undefined ? undefined : parseRfc3339(q.captured_after, 'query.captured_after'),
    capturedBefore: q.captured_before === undefined ? undefined : parseRfc3339(q.captured_before, 'query.captured_before'),
    creatorId: q.creator_id,
    bbox: q.bbox === undefined ? undefined : parseBbox(q.bbox),
    processingStatus: q.processing_status,
    sort,
    after,
    limit: q.limit,
  };
}

/** A page of rows fetched with `c` (limit + 1 of them), with the cursor of its sort. */
export function mediaPage<R extends { id: string; captured_at: Date }>(rows: R[], c: MediaListCriteria): PageOf<R> {
  return c.sort === 'captured_at'
    ? toPage(rows, c.limit, c.sort, (r) => [r.captured_at.toISOString(), r.id], (r) => r)
    : toPage(rows, c.limit, c.sort, (r) => [r.id], (r) => r);
}

/** `minLon,minLat,maxLon,maxLat`, checked: a bad box is a 400 naming `query.bbox`. */
export function parseBbox(text: string): BoundingBox {
  const parts = text.split(',').map((p) => p.trim());
  const nums = parts.map((p) => (p === '' ? NaN : Number(p)));
  const bad = (message: string): never => validationFailed([{ path: 'query.bbox', message }]);
  if (parts.length !== 4 || nums.some((n) => !Number.isFinite(n))) bad('must be four numbers: minLon,minLat,maxLon,maxLat');
  const [minLon, minLat, maxLon, maxLat] = nums as [number, number, number, number];
  if (Math.abs(minLon) > 180 || Math.abs(maxLon) > 180) bad('longitudes must be within -180..180');
  if (Math.abs(minLat) > 90 || Math.abs(maxLat) > 90) bad('latitudes must be within -90..90');
  if (minLat > maxLat) bad('minLat must not be greater than maxLat');
  return { minLon, minLat, maxLon, maxLat };
}
