import type { Config } from './config.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { migrateQueue } from './jobs/queue.ts';

/** Where the database is: DATABASE_URL, or the embedded server under the data directory. */
export interface DatabaseLocation {
  url: string;
  embedded: boolean;
  /** Leaves the embedded server (stopping it when no other jobsite process uses it). */
  release(): Promise<void>;
}

export async function locateDatabase(config: Config, say: (msg: string) => void = () => undefined): Promise<DatabaseLocation> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, release: async () => undefined };
  const server = await startEmbeddedPostgres(config.dataDir);
  say(server.started
    ? `Started the embedded PostgreSQL on 127.0.0.1:${server.port} (data in ${config.dataDir})`
    : `Using the embedded PostgreSQL already running on 127.0.0.1:${server.port} (data in ${config.dataDir})`);
  return { url: server.url, embedded: true, release: () => server.release() };
}

/** Our SQL migrations, then the job queue's schema. */
export async function migrateAll(url: string): Promise<string[]> {
  const { applied } = await migrate(url);
  await migrateQueue(url);
  return applied;
}
