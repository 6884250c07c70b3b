import { EventEmitter } from 'node:events';
import { run, type Runner, type Worker, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import type { Logger as PinoLogger } from 'pino';
import type { Availability } from '../db/availability.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { ownPool, quietLogger, taskList, WORKER_CRONTAB, type JobDeps, type WorkerOutages } from './queue.ts';

/** A running worker: graphile-worker's runner, kept running through outages, and its pool. */
export interface JobWorker {
  /** graphile-worker's events (job:start, job:complete, …), of whichever runner is current. */
  readonly events: WorkerEvents;
  /**
   * Stops taking jobs and lets the running ones finish. If `cutoff` fires first, the jobs still
   * running are handed back to the queue (unlocked, due at once, so any worker runs them again:
   * jobs are safe to run twice) and stop() returns without waiting for them.
   */
  stop(cutoff?: AbortSignal): Promise<void>;
}

/**
 * Runs the queue until stopped, and keeps it running through database outages. graphile-worker
 * recovers from some on its own (job polls and its LISTEN connection retry), but not from all:
 * its cron stops the whole runner when it cannot schedule, and a worker that cannot record a
 * job's outcome exits for good, its job left locked. So when the runner stops by itself, or a
 * worker dies, a new runner is started once the database answers, after unlocking the jobs of
 * the dead workers.
 */
export async function startWorker(connectionString: string, deps: JobDeps, log?: PinoLogger,
  concurrency = deps.config.media.workerConcurrency, outages: WorkerOutages = {}): Promise<JobWorker> {
  const pgPool = ownPool(connectionString, Math.max(10, concurrency + 2), 'jobsite-worker');
  const worker = new SupervisedQueue(pgPool, (events) => run({
    pgPool,
    concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    taskList: taskList(deps),
    crontab: WORKER_CRONTAB,
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

class SupervisedQueue implements JobWorker {
  private runner: Runner | null = null;
  private stopping = false;
  private restarting: Promise<void> | null = null;
  /** Ids of workers that exited holding a job (graphile-worker's "seppuku"): unlocked on restart. */
  private orphans: string[] = [];
  /** Every worker of every runner: those holding a job at a shutdown cutoff hand it back. */
  private readonly workers: Worker[] = [];
  private wakeUp: (() => void) | null = null;
  readonly events: WorkerEvents = new EventEmitter();

  constructor(
    private readonly pool: pg.Pool,
    private readonly launch: (events: WorkerEvents) => Promise<Runner>,
    private readonly log?: PinoLogger,
    private readonly database?: Availability,
  ) {
    this.events.on('worker:create', ({ worker }) => this.workers.push(worker));
    this.events.on('worker:fatalError', ({ worker }) => {
      this.orphans.push(worker.workerId);
      this.restart();
    });
  }

  async start(): Promise<void> {
    this.runner = await this.launchWatched();
  }

  async stop(cutoff?: AbortSignal): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.restarting;
    const runner = this.runner;
    this.runner = null;
    const stopped = (runner ? runner.stop() : Promise.resolve()).then(() => true, (err: unknown) => {
      this.log?.error({ err }, 'stopping the worker failed');
      return true;
    });
    if (await Promise.race([stopped, abortedPromise(cutoff)])) {
      await this.pool.end();
      return;
    }
    // Out of time: force_unlock_workers is graphile-worker's own way to release a dead worker's
    // jobs; unlike a failure it neither delays the job nor records an error.
    const running = this.workers.map((w) => w.getActiveJob()).filter((job) => job !== null);
    this.log?.warn({ jobs: running.map((job) => ({ id: job.id, task: job.task_identifier })) },
      `Handing ${running.length} running job(s) back to the queue`);
    await this.pool.query('select graphile_worker.force_unlock_workers($1::text[])', [this.workers.map((w) => w.workerId)])
      .catch((err: unknown) => this.log?.error({ err }, 'handing the running jobs back failed; they run again once their lock expires (4 h)'));
    // The abandoned jobs may hold connections of the pool: do not wait for them.
    void this.pool.end().catch(() => undefined);
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

/** Resolves false when `signal` aborts (never without one). */
function abortedPromise(signal?: AbortSignal): Promise<false> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve(false);
    else signal.addEventListener('abort', () => resolve(false), { once: true });
  });
}
