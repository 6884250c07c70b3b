import { run, runMigrations, type Runner, type TaskList } from 'graphile-worker';
import type { Logger as PinoLogger } from 'pino';
import { Logger, type LogFunctionFactory } from 'graphile-worker';
import type { Db } from '../db/database.ts';
import { cleanupTasks, CLEANUP_CRONTAB } from './cleanup.ts';

/**
 * The PostgreSQL-backed job queue (graphile-worker): jobs are added inside the transaction of
 * the change that caused them, picked up within milliseconds through LISTEN/NOTIFY, and shared
 * between any number of worker processes with SKIP LOCKED.
 */
export interface JobDeps {
  db: Db;
}

/** Installs or upgrades the queue's own schema (graphile_worker); safe to run from many processes. */
export async function migrateQueue(connectionString: string): Promise<void> {
  await runMigrations({ connectionString, logger: quietLogger() });
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
  const tasks: TaskList = { ...cleanupTasks(deps) };
  return tasks;
}

export async function startWorker(connectionString: string, deps: JobDeps, log?: PinoLogger, concurrency = 4): Promise<Runner> {
  return run({
    connectionString,
    concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    taskList: taskList(deps),
    crontab: CLEANUP_CRONTAB,
    logger: quietLogger(log),
  });
}
