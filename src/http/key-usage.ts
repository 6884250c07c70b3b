import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Last-use recording of API keys; `flush()` writes what is noted now (tests, shutdown). */
    keyUsage: KeyUsageRecorder;
  }
}

/**
 * `last_used_at` of API keys (and of sessions), kept off the hot path: a request only notes its key in memory, and
 * a timer writes the notes in one statement every 10 seconds. A key is noted at most once a
 * minute per process, and the statement skips keys whose last_used_at another process moved
 * within the minute, so a busy key costs at most one row update a minute, whatever the traffic.
 * The value is therefore accurate to about a minute (plus the flush interval).
 */
export class KeyUsageRecorder {
  /** Keys used since the last flush: id -> when. */
  private pending = new Map<string, Date>();
  /** When each key was last noted (ms), to skip it for the next minute. */
  private readonly noted = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;

  /** `table`: api_keys (keys) or sessions (browser sign-in, whose idle expiry reads last_used_at). */
  constructor(private readonly db: Db, readonly intervalMs = 60_000, flushMs = 10_000, private readonly table: 'api_keys' | 'sessions' = 'api_keys') {
    this.timer = setInterval(() => void this.flush().catch(() => undefined), flushMs);
    this.timer.unref();
  }

  /** Notes a use of the key (cheap: a map lookup; nothing is written here). */
  touch(apiKeyId: string, now = Date.now()): void {
    const last = this.noted.get(apiKeyId);
    if (last !== undefined && now - last < this.intervalMs) return;
    this.noted.set(apiKeyId, now);
    this.pending.set(apiKeyId, new Date(now));
  }

  /** Writes what was noted; resolves once it is in the database (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = (async () => {
      try {
        await sql`
          update ${sql.table(this.table)} k set last_used_at = u.at
            from unnest(${[...batch.keys()]}::text[], ${[...batch.values()]}::timestamptz[]) as u(id, at)
           where k.id = u.id and (k.last_used_at is null or k.last_used_at <= u.at - make_interval(secs => ${this.intervalMs / 1000}))`.execute(this.db);
      } catch (err) {
        // Keep the notes for the next round (a newer note of the same key wins).
        for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
        throw err;
      } finally {
        this.flushing = null;
      }
      const horizon = Date.now() - this.intervalMs;
      for (const [id, at] of this.noted) if (at < horizon) this.noted.delete(id);
    })();
    await this.flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => undefined);
  }
}
