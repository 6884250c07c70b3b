import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export interface EnqueueOptions {
  /**
   * At most one waiting job per key: adding a job whose key is already queued replaces its
   * payload instead of queuing a second one (graphile-worker's `job_key`).
   */
  jobKey?: string;
  /** `replace` (default) or `preserve_run_at`: a job already waiting keeps its time (e.g. its retry backoff). */
  jobKeyMode?: 'replace' | 'preserve_run_at';
  /** Tries before the job is given up (default 5; backoff is exponential, ~e^n seconds). */
  maxAttempts?: number;
  runAt?: Date;
}

/**
 * Queues a job with graphile-worker's own SQL function, on the caller's connection: inside a
 * transaction, the job exists exactly when the change that asked for it is committed. Payloads
 * carry ids only; the task reads the current state when it runs.
 */
export async function enqueue(db: Executor, task: string, payload: Record<string, string | number>, options: EnqueueOptions = {}): Promise<void> {
  await sql`select graphile_worker.add_job(
    ${task}, ${JSON.stringify(payload)}::json,
    run_at => ${options.runAt ?? null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? 5}::int,
    job_key => ${options.jobKey ?? null}::text,
    job_key_mode => ${options.jobKeyMode ?? 'replace'}::text
  )`.execute(db);
}
