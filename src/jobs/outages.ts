import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { isStorageUnavailable } from '../storage/unavailable.ts';

/**
 * Whether a job failed because the database or the blob store is unreachable. Such a job must not
 * give up (mark its photo, video or report failed): it throws, the queue retries it with backoff,
 * and a job that runs out of attempts meanwhile is queued again by the stale-job sweeps
 * (requeue_lost_jobs, src/jobs/requeue.ts), so it finishes once the outage is over.
 */
export function isOutage(err: unknown): boolean {
  return isStorageUnavailable(err) || isDatabaseUnavailable(err);
}
