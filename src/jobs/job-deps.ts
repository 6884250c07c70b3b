import type { Logger as PinoLogger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { EventLog } from '../features/events/events.log.ts';
import type { BlobStore } from '../storage/blob-store.ts';

/**
 * What every job handler gets. Its own module, below both the queue (which lists every feature's
 * handlers) and the features' job files (which take it), so neither imports the other back.
 */
export interface JobDeps {
  db: Db;
  blobs: BlobStore;
  config: Config;
  events: EventLog;
  log?: PinoLogger;
}
