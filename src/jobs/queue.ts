import { run, runMigrations, runOnce, type Runner, type TaskList } from 'graphile-worker';
import pg from 'pg';
import type { Logger as PinoLogger } from 'pino';
import { Logger, type LogFunctionFactory } from 'graphile-worker';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { EventLog } from '../features/events/events.log.ts';
import { lostPhotoJobs, photoTasks } from '../features/photos/photos.jobs.ts';
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

/** Every periodic job: housekeeping, and requeueing lost jobs. */
export const WORKER_CRONTAB = CLEANUP_CRONTAB + REQUEUE_CRONTAB;

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

export async function startWorker(connectionString: string, deps: JobDeps, log?: PinoLogger, concurrency = deps.config.media.workerConcurrency): Promise<Runner> {
  const pgPool = ownPool(connectionString, Math.max(10, concurrency + 2), 'jobsite-worker');
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
    });
  } catch (err) {
    await pgPool.end();
    throw err;
  }
  const stopRunner = runner.stop.bind(runner);
  runner.stop = async () => {
    try {
      await stopRunner();
    } finally {
      await pgPool.end();
    }
  };
  return runner;
}
