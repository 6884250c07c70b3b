import { runMigrations, runOnce, type TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Logger as PinoLogger } from 'pino';
import { Logger, type LogFunctionFactory } from 'graphile-worker';
import type { Config } from '../config.ts';
import type { Availability } from '../db/availability.ts';
import { connectionLimits, guardConnections, type Db } from '../db/database.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { isStorageUnavailable } from '../storage/unavailable.ts';
import { lostPhotoJobs, PHOTO_CRONTAB, photoTasks } from '../features/photos/photos.jobs.ts';
import { lostReportJobs, reportTasks } from '../features/reports/reports.jobs.ts';
import { exportTasks, lostExportJobs } from '../features/exports/exports.jobs.ts';
import { lostVideoJobs, videoTasks } from '../features/videos/videos.jobs.ts';
import { documentTasks, lostDocumentTextJobs } from '../features/documents/documents.jobs.ts';
import { cleanupTasks, CLEANUP_CRONTAB } from './cleanup.ts';
import type { JobDeps } from './job-deps.ts';
import { REQUEUE_CRONTAB, requeueTasks } from './requeue.ts';

/**
 * The PostgreSQL-backed job queue (graphile-worker): jobs are added inside the transaction of
 * the change that caused them, picked up within milliseconds through LISTEN/NOTIFY, and shared
 * between any number of worker processes with SKIP LOCKED.
 */
export type { JobDeps } from './job-deps.ts';

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
export function ownPool(connectionString: string, max: number, applicationName: string): pg.Pool {
  // The queue's statements are short (its migrations less so); the limits are for a server that goes away.
  const pool = new pg.Pool({ connectionString, max, application_name: applicationName, ...connectionLimits(60_000) });
  guardConnections(pool);
  return pool;
}

/** Where the worker reports an unreachable database or blob store (instead of a log line per failure). */
export interface WorkerOutages {
  database?: Availability;
  storage?: Availability;
}

export function quietLogger(log?: PinoLogger, outages: WorkerOutages = {}): Logger {
  const factory: LogFunctionFactory = (scope) => (level, message, meta) => {
    if (!log) return;
    // Polls, LISTEN reconnects and tasks failing because a dependency is down: one throttled report.
    const err = (meta?.error ?? meta?.fatalError) as unknown;
    if (err !== undefined && (level === 'error' || level === 'warning')) {
      if (outages.storage && isStorageUnavailable(err)) return outages.storage.failed(err, 'worker');
      if (outages.database && isDatabaseUnavailable(err)) return outages.database.failed(err, 'worker');
    }
    const fn = level === 'error' ? log.error : level === 'warning' ? log.warn : log.debug;
    fn.call(log, { scope, ...meta }, message);
  };
  return new Logger(factory);
}

export function taskList(deps: JobDeps): TaskList {
  const tasks: TaskList = {
    ...cleanupTasks(deps), ...photoTasks(deps), ...videoTasks(deps), ...reportTasks(deps), ...exportTasks(deps), ...documentTasks(deps),
    ...requeueTasks(deps.db, [lostPhotoJobs, lostVideoJobs, lostReportJobs, lostExportJobs, lostDocumentTextJobs], deps.log),
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
