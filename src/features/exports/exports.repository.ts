import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { ExportsTable, ExportStatus } from '../../db/schema.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';

export type ExportRow = Selectable<ExportsTable>;

export interface ExportListCriteria {
  workspaceId: string;
  projectId: string;
  status?: ExportStatus;
  afterId: string | null;
  limit: number;
}

/** The exports table: the request, its status, and where the finished ZIP is. */
export class ExportsRepository {
  get(db: Executor, workspaceId: string, id: string, lock = false): Promise<ExportRow | undefined> {
    let q = db.selectFrom('exports').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
    if (lock) q = q.forUpdate();
    return q.executeTakeFirst();
  }

  insert(db: Executor, row: Insertable<ExportsTable>): Promise<ExportRow> {
    return db.insertInto('exports').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Newest first, keyset on the id. */
  list(db: Executor, c: ExportListCriteria): Promise<ExportRow[]> {
    let q = db.selectFrom('exports').selectAll().where('workspace_id', '=', c.workspaceId).where('project_id', '=', c.projectId);
    if (c.status !== undefined) q = q.where('status', '=', c.status);
    if (c.afterId !== null) q = q.where('id', '<', c.afterId);
    return q.orderBy('id', 'desc').limit(c.limit + 1).execute();
  }

  /**
   * Exports whose job is lost: still queued since before `olderThan`, or left processing since then
   * (a live run queued again is harmless: the job key keeps one job per export, and only the run
   * that finds it processing records a ZIP).
   */
  stale(db: Executor, olderThan: Date, limit: number): Promise<{ id: string }[]> {
    return db.selectFrom('exports').select('id')
      .where((eb) => eb.or([
        eb.and([eb('status', '=', 'queued'), eb('created_at', '<', olderThan)]),
        eb.and([eb('status', '=', 'processing'), eb('updated_at', '<', olderThan)]),
      ]))
      .orderBy('created_at').limit(limit).execute();
  }

  /** queued (or processing, when a run died half-way) → processing; undefined when it is done or gone. */
  claim(db: Executor, id: string): Promise<ExportRow | undefined> {
    return db.updateTable('exports').set({ status: 'processing', updated_at: bumpUpdatedAt })
      .where('id', '=', id).where('status', 'in', ['queued', 'processing'])
      .returningAll().executeTakeFirst();
  }

  /** A run still writing says so (the lost-job sweep goes by `updated_at`). */
  touch(db: Executor, id: string): Promise<unknown> {
    return db.updateTable('exports').set({ updated_at: sql<Date>`now()` }).where('id', '=', id).where('status', '=', 'processing').execute();
  }

  /** Records the ZIP, only while the export is still processing (a second run, or a deleted export, writes nothing). */
  finish(db: Executor, id: string, done: { blobKey: string; byteSize: number; photoCount: number }): Promise<ExportRow | undefined> {
    return db.updateTable('exports')
      .set({
        status: 'finished', error: null, blob_key: done.blobKey, byte_size: done.byteSize, photo_count: done.photoCount,
        finished_at: sql<Date>`now()`, updated_at: bumpUpdatedAt,
      })
      .where('id', '=', id).where('status', '=', 'processing')
      .returningAll().executeTakeFirst();
  }

  fail(db: Executor, id: string, error: string): Promise<ExportRow | undefined> {
    return db.updateTable('exports')
      .set({ status: 'failed', error, finished_at: sql<Date>`now()`, updated_at: bumpUpdatedAt })
      .where('id', '=', id).where('status', 'in', ['queued', 'processing'])
      .returningAll().executeTakeFirst();
  }

  /** The trigger records the ZIP's key in blob_garbage. */
  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('exports').where('id', '=', id).execute();
  }

  /** Exports that ended (finished or failed) before `cutoff`, deleted (the trigger records their ZIPs); their ZIPs' keys. */
  async deleteEndedBefore(db: Executor, cutoff: Date): Promise<{ blob_key: string | null }[]> {
    return db.deleteFrom('exports').where('finished_at', '<', cutoff).returning('blob_key').execute();
  }
}
