import type { TaskList } from 'graphile-worker';
import { purgeExpiredEvents } from '../features/events/events.service.ts';
import { IDEMPOTENCY_TTL_HOURS } from '../http/idempotency.ts';
import type { JobDeps } from './queue.ts';

/**
 * Housekeeping: hourly, forget idempotency records past their 24 h and old rate-limit windows;
 * daily, delete events past their 30-day retention (their deliveries and attempts cascade).
 */
export const CLEANUP_CRONTAB = '17 * * * * purge_request_records\n' +
  '43 3 * * * purge_expired_events\n';

export function cleanupTasks({ db }: JobDeps): TaskList {
  return {
    purge_request_records: async () => {
      await db.deleteFrom('idempotency_keys')
        .where('created_at', '<', new Date(Date.now() - (IDEMPOTENCY_TTL_HOURS + 1) * 3600_000)).execute();
      await db.deleteFrom('rate_limit_windows')
        .where('window_start', '<', new Date(Date.now() - 3600_000)).execute();
    },
    purge_expired_events: async () => {
      await purgeExpiredEvents(db);
    },
  };
}
