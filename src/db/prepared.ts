import crypto from 'node:crypto';
import pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * Kysely's statements as named (prepared) statements: each query shape is parsed and planned
 * once per connection instead of on every execution, which for our reads is most of what
 * PostgreSQL spends on them (bench/RESULTS.md, issue 16).
 *
 * The name is a hash of the SQL text, so one shape is one name and two shapes never share one.
 * Only statements with parameters are named: the parameterless ones are BEGIN, COMMIT, SET and
 * the like, and a raw script of several statements must go through the simple protocol.
 * A connection keeps at most MAX_PER_CONNECTION statements (shapes with a variable number of
 * parameters, e.g. `in ($1, $2, …)`, make new ones); past that, new shapes go unnamed as before.
 * The raw `pool.query` calls (probes, migrations, the job queue) are left as they are.
 *
 * Searches (`ilike`, and full-text `@@`) stay unnamed: after five executions PostgreSQL may keep
 * one generic plan for a prepared statement, and the plan of a search depends on its pattern (a
 * rare word wants the trigram or word index, a common one the list's order; docs/decisions.md, "Search").
 */
export const MAX_PER_CONNECTION = 500;
/** Shapes whose names are remembered (text → name), so the hash is computed once per shape. */
const MAX_NAMES = 2_000;

const names = new Map<string, string | null>();

/** The statement name of a SQL text: `k` and 20 characters of its SHA-1; null for a search, planned on every execution. */
export function statementName(text: string): string | null {
  let name = names.get(text);
  if (name === undefined) {
    name = /\bilike\b|@@/i.test(text) ? null : `k${crypto.createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (names.size >= MAX_NAMES) names.delete(names.keys().next().value!);
    names.set(text, name);
  }
  return name;
}

/** One pooled connection as Kysely sees it: its queries named, at most MAX_PER_CONNECTION per connection. */
class PreparingClient {
  private readonly prepared = new Set<string>();
  /** Statements whose plan a schema change made invalid (`select *` of a table that gained a column): sent unnamed from then on. */
  private readonly stale = new Set<string>();

  constructor(private readonly client: pg.PoolClient) {}

  query(text: string | PostgresCursor<unknown>, values: readonly unknown[] = []): unknown {
    if (typeof text !== 'string') return this.client.query(text as never);
    if (values.length === 0) return this.run(undefined, text, values as unknown[]);
    const name = statementName(text);
    if (name === null || this.stale.has(name)) return this.run(undefined, text, values as unknown[]);
    if (!this.prepared.has(name)) {
      if (this.prepared.size >= MAX_PER_CONNECTION) return this.run(undefined, text, values as unknown[]);
      this.prepared.add(name);
    }
    return this.run(name, text, values as unknown[]).catch((err: unknown) => {
      if (isStalePlan(err)) this.stale.add(name);
      throw err;
    });
  }

  /**
   * A statement, named when `name` is given. `client.query({ name, text, values })` copies the
   * config through property descriptors on every call (pg's cloneQueryConfig, a few µs); a Query
   * made from the text, then named, is the same statement without the copy (and without a name,
   * what `client.query(text, values)` makes). The client's read timeout applies as to any other.
   *
   * That timeout's timer keeps the query, and whatever its callback reaches, alive until a full
   * garbage collection even once it is cleared: every result would survive the young-generation
   * collections and be promoted (a page of 50 events: ~70 KB a request, scavenges 10× slower).
   * So once the query ends it lets go of its rows, and its callback of the promise.
   */
  private run(name: string | undefined, text: string, values: unknown[]): Promise<pg.QueryResult> {
    const pending: { resolve?: (result: pg.QueryResult) => void; reject?: (err: Error) => void } = {};
    const promise = new Promise<pg.QueryResult>((resolve, reject) => {
      pending.resolve = resolve;
      pending.reject = reject;
    });
    const query = new pg.Query(text, values, (err, result) => {
      const { resolve, reject } = pending;
      pending.resolve = pending.reject = undefined;
      if (err) {
        // A query that failed (or timed out) may still receive the server's late answer: its result stays.
        reject?.(err);
        return;
      }
      // After pg's own 'end' event, which follows this callback synchronously.
      queueMicrotask(() => releaseRows(query));
      resolve?.(result as unknown as pg.QueryResult);
    });
    if (name !== undefined) (query as unknown as { name: string }).name = name;
    this.client.query(query);
    return promise;
  }

  release(): void {
    this.client.release();
  }
}

/** Drops a finished query's result (pg keeps it on the query as `_result` and `_results`). */
function releaseRows(query: object): void {
  const q = query as { _result?: unknown; _results?: unknown };
  q._result = undefined;
  q._results = undefined;
}

/** PostgreSQL's answer to a prepared statement whose result columns a schema change altered (another process migrated). */
const isStalePlan = (err: unknown) =>
  (err as { code?: unknown }).code === '0A000' && /cached plan must not change result type/.test((err as Error).message);

/** The pool for Kysely's PostgresDialect, handing out connections whose statements are prepared. */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PreparingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let preparing = clients.get(client);
      if (!preparing) {
        preparing = new PreparingClient(client);
        clients.set(client, preparing);
      }
      return preparing as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
