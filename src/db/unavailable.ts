/**
 * Which errors mean "the database is not there right now" (refused, reset, shut down, not
 * answering in time), as opposed to a query that is wrong or a constraint that said no. The
 * former answer 503 with Retry-After and are retried; the latter are bugs or 4xx.
 */

/** Socket-level failures: the server (or the path to it) is down. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  'EHOSTUNREACH', 'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOENT', // ENOENT: a Unix socket that is gone
]);

/**
 * SQLSTATEs of a server that is going or gone: class 08 (connection exception), 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, recovering),
 * 53300 too_many_connections.
 */
const SERVER_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's own words for a connection that broke or never came up. */
const DRIVER_MESSAGES = [
  /^Connection terminated/i, // unexpectedly | due to connection timeout | (by the pool)
  /timeout exceeded when trying to connect/i, // pg.Pool's connectionTimeoutMillis
  /^Query read timeout/i, // query_timeout: the server stopped answering
  /is not queryable/i, // a client that already errored
  /^The server does not support SSL connections/i,
];

export type DatabaseFailure = 'unreachable' | 'timeout';

/**
 * 'unreachable' when the database cannot be reached or went away, 'timeout' when it is up but a
 * statement ran past statement_timeout (SQLSTATE 57014), null for anything else. Looks through
 * `cause` and AggregateError's `errors` (Node's connection attempts to each address of a host).
 */
export function databaseFailure(err: unknown, depth = 0): DatabaseFailure | null {
  if (typeof err !== 'object' || err === null || depth > 4) return null;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown; syscall?: unknown; $metadata?: unknown };
  if (e.$metadata !== undefined) return null; // the AWS SDK's (the blob store), not ours
  const code = typeof e.code === 'string' ? e.code : '';
  // A socket error of our own connection carries its syscall; a client that cut its upload
  // short ("aborted", ECONNRESET without one) says nothing about the database.
  if (NETWORK_CODES.has(code) && typeof e.syscall === 'string') return 'unreachable';
  if (SERVER_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return 'unreachable';
  if (code === '57014' && typeof e.message === 'string' && /statement timeout/i.test(e.message)) return 'timeout';
  if (typeof e.message === 'string' && !code && DRIVER_MESSAGES.some((m) => m.test(e.message as string))) return 'unreachable';
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const found = databaseFailure(inner, depth + 1);
      if (found) return found;
    }
  }
  return e.cause !== undefined ? databaseFailure(e.cause, depth + 1) : null;
}

/** Whether `err` means the database is unreachable or did not answer in time (→ 503 database_unavailable). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseFailure(err) !== null;
}
