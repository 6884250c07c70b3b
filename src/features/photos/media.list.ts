import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
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
