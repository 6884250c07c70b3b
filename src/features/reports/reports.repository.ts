import { sql, type Insertable, type Selectable, type SqlBool } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { ReportsTable, ReportStatus } from '../../db/schema.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';

export type ReportRow = Selectable<ReportsTable>;

export interface ReportListCriteria {
  workspaceId: string;
  projectId: string;
  status?: ReportStatus;
  afterId: string | null;
  limit: number;
}

/** The reports table: the request, its status, and where the finished PDF is. */
export class ReportsRepository {
  get(db: Executor, workspaceId: string, id: string, lock = false): Promise<ReportRow | undefined> {
    let q = db.selectFrom('reports').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
    if (lock) q = q.forUpdate();
    return q.executeTakeFirst();
  }

  /**
   * The reports among `ids`, in no particular order, in one statement (sync reads a page's reports
   * with it); `visibleProjects` as in the list: for a restricted user, only those of their projects.
   */
  getMany(db: Executor, workspaceId: string, ids: readonly string[], visibleProjects: ReturnType<ProjectAccess['visibleProjectIds']>): Promise<ReportRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    let q = db.selectFrom('reports as r').selectAll('r').where('r.workspace_id', '=', workspaceId).where(sql<SqlBool>`r.id = any(${ids}::text[])`);
    if (visibleProjects !== null) q = q.where('r.project_id', 'in', visibleProjects);
    return q.execute();
  }

  /** For the job, which acts on the id it was given. */
  getById(db: Executor, id: string): Promise<ReportRow | undefined> {
    return db.selectFrom('reports').selectAll().where('id', '=', id).executeTakeFirst();
  }

  insert(db: Executor, row: Insertable<ReportsTable>): Promise<ReportRow> {
    return db.insertInto('reports').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Reports queued since before `olderThan` (their job may have been lost), oldest first. */
  /**
   * Reports whose job is lost: still queued since before `olderThan`, or left processing since then
   * (the job ran out of attempts during an outage; a live render is re-queued harmlessly: the
   * job key keeps one job per report, and only the run that finds it processing records a PDF).
   */
  staleQueued(db: Executor, olderThan: Date, limit: number): Promise<{ id: string }[]> {
    return db.selectFrom('reports').select('id')
      .where((eb) => eb.or([
        eb.and([eb('status', '=', 'queued'), eb('created_at', '<', olderThan)]),
        eb.and([eb('status', '=', 'processing'), eb('updated_at', '<', olderThan)]),
      ]))
      .orderBy('created_at').limit(limit).execute();
  }

  /** Newest first, keyset on the id. */
  list(db: Executor, c: ReportListCriteria): Promise<ReportRow[]> {
    let q = db.selectFrom('reports').selectAll().where('workspace_id', '=', c.workspaceId).where('project_id', '=', c.projectId);
    if (c.status !== undefined) q = q.where('status', '=', c.status);
    if (c.afterId !== null) q = q.where('id', '<', c.afterId);
    return q.orderBy('id', 'desc').limit(c.limit + 1).execute();
  }

  /** queued (or processing, when a run died half-way) → processing; undefined when it is done or gone. */
  claim(db: Executor, id: string): Promise<ReportRow | undefined> {
    return db.updateTable('reports').set({ status: 'processing', updated_at: bumpUpdatedAt })
      .where('id', '=', id).where('status', 'in', ['queued', 'processing'])
      .returningAll().executeTakeFirst();
  }

  /** Records the PDF, only while the report is still processing (a second run, or a deleted report, writes nothing). */
  finish(db: Executor, id: string, done: { blobKey: string; byteSize: number; pageCount: number; photoCount: number }): Promise<ReportRow | undefined> {
    return db.updateTable('reports')
      .set({
        status: 'finished', error: null, blob_key: done.blobKey, byte_size: done.byteSize, page_count: done.pageCount,
        photo_count: done.photoCount, finished_at: sql<Date>`now()`, updated_at: bumpUpdatedAt,
      })
      .where('id', '=', id).where('status', '=', 'processing')
      .returningAll().executeTakeFirst();
  }

  fail(db: Executor, id: string, error: string): Promise<ReportRow | undefined> {
    return db.updateTable('reports')
      .set({ status: 'failed', error, finished_at: sql<Date>`now()`, updated_at: bumpUpdatedAt })
      .where('id', '=', id).where('status', 'in', ['queued', 'processing'])
      .returningAll().executeTakeFirst();
  }

  /** The trigger records the PDF's key in blob_garbage. */
  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('reports').where('id', '=', id).execute();
  }
}
