import pg from 'pg';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import { preparingPool } from './prepared.ts';
import { parseTextArray, TEXT_ARRAY } from './text-arrays.ts';
import { parseTimestamptz } from './timestamps.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the root handle or a transaction: repositories accept both. */
export type Executor = Kysely<Database>;

// int8 (counts, sums) as numbers: none of ours come near 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
// timestamptz as Date, the same Date as pg's parser gives, in a third of the time (db/timestamps.ts).
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);
// text[] as arrays, the same as pg's parser gives, split at the commas when nothing is quoted (db/text-arrays.ts).
pg.types.setTypeParser(TEXT_ARRAY, parseTextArray);

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * Bounds on waiting for the database, so that no API request waits more than about 5 s when it
 * goes away: a connection must be made within 2 s (a host that does not answer; a request may need two), a statement may
 * run 4 s on the server (API statements take milliseconds; the job queue's pools allow minutes),
 * and the client gives up half a second after that (a server that stopped answering mid-query).
 * TCP keepalives find connections to a vanished host while they sit idle in the pool.
 */
export const CONNECT_TIMEOUT_MS = 2_000;
export const STATEMENT_TIMEOUT_MS = 4_000;

export function connectionLimits(statementTimeoutMs = STATEMENT_TIMEOUT_MS) {
  return {
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 500,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  } satisfies pg.PoolConfig;
}

/**
 * A dropped connection must not crash the process. The pool listens for errors only on idle
 * connections; one checked out between statements (a transaction awaiting other work) when the
 * server goes away would emit an unhandled 'error'. Each connection gets a listener of its own:
 * the statement in progress or the next one fails instead, and the pool discards the connection.
 */
export function guardConnections(pool: pg.Pool): void {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
}

export interface DatabaseOptions {
  max?: number;
  applicationName?: string;
  statementTimeoutMs?: number;
  /** Kysely's statements as prepared statements (db/prepared.ts); off for a pooler that cannot keep them (docs/operations.md). Default on. */
  prepare?: boolean;
}

export function openDatabase(connectionString: string, options: DatabaseOptions = {}): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'jobsite',
    idleTimeoutMillis: 30_000,
    ...connectionLimits(options.statementTimeoutMs),
  });
  guardConnections(pool);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: options.prepare === false ? pool : preparingPool(pool) }) });
  return {
    db,
    pool,
    close: () => db.destroy(),
  };
}
