import pg from 'pg';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the root handle or a transaction: repositories accept both. */
export type Executor = Kysely<Database>;

// int8 (counts, sums) as numbers: none of ours come near 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function openDatabase(connectionString: string, options: { max?: number; applicationName?: string } = {}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'jobsite',
    idleTimeoutMillis: 30_000,
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    close: () => db.destroy(),
  };
}
