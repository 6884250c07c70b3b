import pg from 'pg';
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
  const where = server.relocatedTo
    ? `data in ${server.pgdata}, linked from ${config.dataDir}: the postgres user cannot reach it there`
    : `data in ${config.dataDir}`;
  say(server.started
    ? `Started the embedded PostgreSQL on 127.0.0.1:${server.port} (${where})`
    : `Using the embedded PostgreSQL already running on 127.0.0.1:${server.port} (${where})`);
  return { url: server.url, embedded: true, release: () => server.release() };
}

// Any constant works; it only has to be the same in every process (and differ from db/migrate.ts's).
const MIGRATE_ALL_LOCK = 7_344_221_902;

/**
 * Our SQL migrations, then the job queue's schema. Several processes may start at once (two CLI
 * commands, API and worker processes): one session-level advisory lock makes them take turns, so
 * the queue's own installer, which is not safe against itself, never runs twice at once.
 */
export async function migrateAll(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, application_name: 'jobsite-migrate' });
  client.on('error', () => undefined); // a lost connection fails the pending query instead
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATE_ALL_LOCK]);
    const { applied } = await migrate(url);
    await migrateQueue(url);
    return applied;
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATE_ALL_LOCK]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
