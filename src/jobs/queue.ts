import { EventEmitter } from 'node:events';
import { run, runMigrations, runOnce, type Runner, type TaskList, type Worker, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger as PinoLogger } from 'pino';
import { Logger, type LogFunctionFactory } from 'graphile-worker';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { EventLog } from '../features/events/events.log.ts';
import { lostPhotoJobs, PHOTO_CRONTAB, photoTasks } from '../features/photos/photos.jobs.ts';
import { lostReportJobs, reportTasks } from '../features/reports/reports.jobs.ts';
import { lostVideoJobs, videoTasks } from '../features/videos/videos.jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { cleanupTasks, CLEANUP_CRONTAB } from './cleanup.ts';
import { REQUEUE_CRONTAB, requeueTasks } from './requeue.ts';

/**
 * The PostgreSQL-backed job queue (graphile-worker): jobs are added inside the transaction of
 * the change that caused them, picked up within milliseconds through LISTEN/NOTIFY, and shared
 * between any number of worker processes with SKIP LOCKED.
 */
export interface JobDeps {
  db: Db;
  blobs: BlobStore;
  config: Config;
  events: EventLog;
  log?: PinoLogger;
}

/** Installs or upgrades the queue's own schema (graphile_worker); safe to run from many processes. */
export async function migrateQueue(connectionString: string): Promise<void> {
  const pgPool = ownPool(connectionString, 2, 'jobsite-migrate');
  try {
    await runMigrations({ pgPool, logger: quietLogger() });
  } finally {
    await pgPool.end();
  }
}

/**
 * A pool of our own for graphile-worker: a pool it makes itself it does not wait to close (and it
 * drops its error handler first), so an embedded server stopped right after could cut an idle
 * connection with no one listening, and crash the process.
 */
function ownPool(connectionString: string, max: number, applicationName: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: applicationName });
  pool.on('error', () => undefined);
  return pool;
}

function quietLogger(log?: PinoLogger): Logger {
  const factory: LogFunctionFactory = (scope) => (level, message, meta) => {
    if (!log) return;
    const fn = level === 'error' ? log.error : level === 'warning' ? log.warn : log.debug;
    fn.call(log, { scope, ...meta }, message);
  };
  return new Logger(factory);
}

export function taskList(deps: JobDeps): TaskList {
  const tasks: TaskList = {
    ...cleanupTasks(deps), ...photoTasks(deps), ...videoTasks(deps), ...reportTasks(deps),
    ...requeueTasks(deps.db, [lostPhotoJobs, lostVideoJobs, lostReportJobs], deps.log),
  };
  return tasks;
}

/** Every periodic job: housekeeping, requeueing lost jobs, and re-reading legacy photo times. */
export const WORKER_CRONTAB = CLEANUP_CRONTAB + REQUEUE_CRONTAB + PHOTO_CRONTAB;

/**
 * Runs every job that is due now, then returns (graphile-worker's runOnce): what the tests use to
 * process uploads deterministically, and handy for a one-off catch-up from a script.
 */
export async function runJobsOnce(connectionString: string, deps: JobDeps): Promise<void> {
  const pgPool = ownPool(connectionString, 4, 'jobsite-run-once');
  try {
    await runOnce({ pgPool, concurrency: 1, taskList: taskList(deps), logger: quietLogger(deps.log) });
  } finally {
    await pgPool.end();
  }
}

/** A running worker (graphile-worker's runner and its pool of connections). */
export interface JobWorker {
  /** graphile-worker's events (job:start, job:complete, …). */
  events: WorkerEvents;
  /**
   * Stops taking jobs and lets the running ones finish. If `cutoff` fires first, the jobs still
   * running are handed back to the queue (unlocked, due at once, so any worker runs them again:
   * jobs are safe to run twice) and stop() returns without waiting for them.
   */
  stop(cutoff?: AbortSignal): Promise<void>;
}

export async function startWorker(connectionString: string, deps: JobDeps, log?: PinoLogger, concurrency = deps.config.media.workerConcurrency): Promise<JobWorker> {
  const pgPool = ownPool(connectionString, Math.max(10, concurrency + 2), 'jobsite-worker');
  const events = new EventEmitter() as WorkerEvents;
  const workers: Worker[] = [];
  events.on('worker:create', ({ worker }) => workers.push(worker));
  let runner: Runner;
  try {
    runner = await run({
      pgPool,
      concurrency,
      noHandleSignals: true,
      pollInterval: 2000,
      taskList: taskList(deps),
      crontab: WORKER_CRONTAB,
      logger: quietLogger(log),
      events,
    });
  } catch (err) {
    await pgPool.end();
    throw err;
  }
  return {
    events,
    async stop(cutoff) {
      const stopped = runner.stop().then(() => true, (err: unknown) => {
        log?.error({ err }, 'stopping the worker failed');
        return true;
      });
      if (await Promise.race([stopped, abortedPromise(cutoff)])) {
        await pgPool.end();
        return;
      }
      // Out of time: force_unlock_workers is graphile-worker's own way to release a dead worker's
      // jobs; unlike a failure it neither delays the job nor records an error.
      const running = workers.map((w) => w.getActiveJob()).filter((job) => job !== null);
      log?.warn({ jobs: running.map((job) => ({ id: job.id, task: job.task_identifier })) },
        `Handing ${running.length} running job(s) back to the queue`);
      await pgPool.query('select graphile_worker.force_unlock_workers($1::text[])', [workers.map((w) => w.workerId)])
        .catch((err: unknown) => log?.error({ err }, 'handing the running jobs back failed; they run again once their lock expires (4 h)'));
      // The abandoned jobs may hold connections of the pool: do not wait for them.
      void pgPool.end().catch(() => undefined);
    },
  };
}

/** Resolves false when `signal` aborts (never without one). */
function abortedPromise(signal?: AbortSignal): Promise<false> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve(false);
    else signal.addEventListener('abort', () => resolve(false), { once: true });
  });
}
