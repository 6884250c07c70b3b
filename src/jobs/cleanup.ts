import type { TaskList } from 'graphile-worker';
import { purgeExpiredEvents } from '../features/events/events.service.ts';
import { purgeExpiredExports } from '../features/exports/exports.service.ts';
import { purgeExpiredSyncChanges } from '../features/sync/sync.service.ts';
import { IDEMPOTENCY_TTL_HOURS } from '../http/idempotency.ts';
import { BlobGarbage } from '../storage/garbage.ts';
import type { JobDeps } from './job-deps.ts';

/**
 * Housekeeping: hourly, forget idempotency records past their 24 h and old rate-limit windows;
 * daily, delete events past their 30-day retention (their deliveries and attempts cascade) and sync
 * tombstones past theirs (GET /v1/sync answers older cursors 410); hourly,
 * delete the blobs of deleted photos and videos that the deleting request did not (storage/garbage.ts);
 * hourly, delete exports past their retention (JOBSITE_EXPORT_RETENTION_DAYS) with their ZIPs.
 */
export const CLEANUP_CRONTAB = '17 * * * * purge_request_records\n' +
  '43 3 * * * purge_expired_events\n' +
  '51 3 * * * purge_expired_sync_changes\n' +
  `29 * * * * ${BlobGarbage.TASK}\n` +
  '37 * * * * purge_expired_exports\n';

export function cleanupTasks({ db, blobs, config }: JobDeps): TaskList {
  const garbage = new BlobGarbage(blobs);
  return {
    [BlobGarbage.TASK]: async () => {
      await garbage.collectAll(db);
      // The file driver's half-written temporary files of uploads cut off by a crash.
      const store = blobs as Partial<{ removeStaleTemporaryFiles(): Promise<number> }>;
      if (typeof store.removeStaleTemporaryFiles === 'function') await store.removeStaleTemporaryFiles();
    },
    purge_request_records: async () => {
      await db.deleteFrom('idempotency_keys')
        .where('created_at', '<', new Date(Date.now() - (IDEMPOTENCY_TTL_HOURS + 1) * 3600_000)).execute();
      await db.deleteFrom('rate_limit_windows')
        .where('window_start', '<', new Date(Date.now() - 3600_000)).execute();
    },
    purge_expired_events: async () => {
      await purgeExpiredEvents(db);
    },
    purge_expired_sync_changes: async () => {
      await purgeExpiredSyncChanges(db);
    },
    purge_expired_exports: async () => {
      await purgeExpiredExports(db, blobs, config.media.exportRetentionDays);
    },
  };
}
