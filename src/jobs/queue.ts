import { EventEmitter } from 'node:events';
import { run, runMigrations, runOnce, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import type { Logger as PinoLogger } from 'pino';
import { Logger, type LogFunctionFactory } from 'graphile-worker';
import type { Config } from '../config.ts';
import type { Availability } from '../db/availability.ts';
import { connectionLimits, guardConnections, type Db } from '../db/database.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { isStorageUnavailable } from '../storage/unavailable.ts';
import type { EventLog } from '../features/events/events.log.ts';
import { PHOTO_CRONTAB, photoTasks } from '../features/photos/photos.jobs.ts';
import { REPORT_CRONTAB, reportTasks } from '../features/reports/reports.jobs.ts';
import { VIDEO_CRONTAB, videoTasks } from '../features/videos/videos.jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { cleanupTasks, CLEANUP_CRONTAB } from './cleanup.ts';

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

function quietLogger(log?: PinoLogger, outages: WorkerOutages = {}): Logger {
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
  const tasks: TaskList = { ...cleanupTasks(deps), ...photoTasks(deps), ...videoTasks(deps), ...reportTasks(deps) };
  return tasks;
}

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

export interface QueueWorker {
  /** graphile-worker's events, of whichever runner is current (the same emitter across restarts). */
  readonly events: WorkerEvents;
  /** Finishes the jobs in flight, then stops (and closes the queue's connections). */
  stop(): Promise<void>;
}

const CRONTAB = CLEANUP_CRONTAB + PHOTO_CRONTAB + VIDEO_CRONTAB + REPORT_CRONTAB;

/**
 * Runs the queue until stopped, and keeps it running through database outages. graphile-worker
 * recovers from some on its own (job polls and its LISTEN connection retry), but not from all:
 * its cron stops the whole runner when it cannot schedule, and a worker that cannot record a
 * job's outcome exits for good, its job left locked. So when the runner stops by itself, or a
 * worker dies, a new runner is started once the database answers, after unlocking the jobs of
 * the dead workers.
 */
export async function startWorker(connectionString: string, deps: JobDeps, log?: PinoLogger,
  concurrency = deps.config.media.workerConcurrency, outages: WorkerOutages = {}): Promise<QueueWorker> {
  const pgPool = ownPool(connectionString, Math.max(10, concurrency + 2), 'jobsite-worker');
  const worker = new SupervisedQueue(pgPool, (events) => run({
    pgPool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    taskList: taskList(deps),
    crontab: CRONTAB,
    logger: quietLogger(log, outages),
    events,
  }), log, outages.database);
  try {
    await worker.start();
  } catch (err) {
    await pgPool.end();
    throw err;
  }
  return worker;
}

/** How long to wait between attempts to bring the runner back while the database is down. */
const RESTART_RETRY_MS = 2000;

class SupervisedQueue implements QueueWorker {
  private runner: Runner | null = null;
  private stopping = false;
  private restarting: Promise<void> | null = null;
  /** Ids of workers that exited holding a job (graphile-worker's "seppuku"): unlocked on restart. */
  private orphans: string[] = [];
  private wakeUp: (() => void) | null = null;
  readonly events: WorkerEvents = new EventEmitter();

  constructor(
    private readonly pool: pg.Pool,
    private readonly launch: (events: WorkerEvents) => Promise<Runner>,
    private readonly log?: PinoLogger,
    private readonly database?: Availability,
  ) {
    this.events.on('worker:fatalError', ({ worker }) => {
      this.orphans.push(worker.workerId);
      this.restart();
    });
  }

  async start(): Promise<void> {
    this.runner = await this.launchWatched();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.restarting;
    const runner = this.runner;
    this.runner = null;
    try {
      await runner?.stop().catch(() => undefined);
    } finally {
      await this.pool.end();
    }
  }

  private async launchWatched(): Promise<Runner> {
    const runner = await this.launch(this.events);
    const ended = () => {
      if (this.runner === runner) this.restart();
    };
    runner.promise.then(ended, ended);
    return runner;
  }

  private restart(): void {
    if (this.stopping || this.restarting) return;
    this.restarting = (async () => {
      const old = this.runner;
      this.runner = null;
      await old?.stop().catch(() => undefined); // "already stopped" when it ended by itself
      while (!this.stopping) {
        try {
          await this.pool.query('select 1');
          if (this.orphans.length) {
            await this.pool.query('select graphile_worker.force_unlock_workers($1::text[])', [this.orphans]);
            this.orphans = [];
          }
          this.runner = await this.launchWatched();
          this.database?.recovered();
          this.log?.info('job queue restarted');
          return;
        } catch (err) {
          if (this.database && isDatabaseUnavailable(err)) this.database.failed(err, 'worker');
          else this.log?.error({ err }, 'restarting the job queue failed; trying again');
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, RESTART_RETRY_MS);
            this.wakeUp = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wakeUp = null;
        }
      }
    })().finally(() => {
      this.restarting = null;
    });
  }
}
