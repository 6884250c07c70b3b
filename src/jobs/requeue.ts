import type { TaskList } from 'graphile-worker';
import type { Logger } from 'pino';
import type { Db, Executor } from '../db/database.ts';

/**
 * Work whose job may have been lost — a wiped queue, a database restored without graphile_worker's
 * rows — is queued again by one periodic task. Each feature describes its own kind of waiting
 * work (photos and videos to process, reports to render); the task asks every kind for rows still
 * waiting long after they were made. Jobs are queued under their job key and keep the time of one
 * still waiting (`preserve_run_at`), so a job that was not lost (one waiting for its retry) is left
 * as it is, and every job is safe to run twice.
 */
export interface LostWork {
  /** What waits, for the log ("photos"). */
  name: string;
  /** Waiting this long means the job is lost: longer than the job and its retries take. */
  staleAfterMs: number;
  /** Up to `limit` ids of rows still waiting that were made before `olderThan`, oldest first. */
  stale(db: Executor, olderThan: Date, limit: number): Promise<string[]>;
  /** Queues the row's job again, under its job key, keeping the time of one still waiting. */
  queue(db: Executor, id: string): Promise<void>;
}

export const REQUEUE_LOST_JOBS = 'requeue_lost_jobs';
export const REQUEUE_CRONTAB = `*/10 * * * * ${REQUEUE_LOST_JOBS}\n`;

/** Rows of one kind queued again per run; more wait for the next run, ten minutes later. */
const BATCH = 500;

export function requeueTasks(db: Db, kinds: readonly LostWork[], log?: Logger): TaskList {
  return {
    [REQUEUE_LOST_JOBS]: async () => {
      const failures: unknown[] = [];
      // One kind failing (its table locked, say) does not keep the others waiting.
      for (const kind of kinds) {
        try {
          const ids = await kind.stale(db, new Date(Date.now() - kind.staleAfterMs), BATCH);
          for (const id of ids) await kind.queue(db, id);
          if (ids.length) log?.warn({ kind: kind.name, count: ids.length }, `queued the lost jobs of ${ids.length} ${kind.name} again`);
        } catch (err) {
          failures.push(err);
        }
      }
      if (failures.length) throw new AggregateError(failures, `requeueing lost jobs failed: ${failures.map((e) => (e as Error).message).join('; ')}`);
    },
  };
}
