import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { ApiError } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's limiter; `flush()` pushes local counts to the shared store now (tests, shutdown). */
    rateLimiter: RateLimiter;
  }
}

interface Window {
  start: number;
  /** Requests counted here and not yet added to the shared row. */
  pending: number;
  /**
   * Requests counted here whose addition to the shared row is under way: still counted until the
   * row's new total is known (they left `pending` when the sync began, and are not in `shared` yet).
   */
  flushing: number;
  /** The shared count (all processes) as of our last sync. */
  shared: number;
  /** While set, the first read of the shared count for this window (once per key, process and minute). */
  loading: Promise<void> | null;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Fixed one-minute windows per API key, shared across processes through PostgreSQL without a
 * write per request: each process counts locally and, about once a second (sooner when a key is
 * busy), adds its counts to the shared rows and reads back the totals that all processes have
 * used for every key it is tracking. The first request of a key in a window (per process)
 * reads the shared count once, so a key moving between processes starts from the real total.
 * A process therefore overshoots by at most what other processes served since its last sync
 * (about a second's worth). `flush()` syncs now: it
 * returns once every request counted before the call is in the shared rows.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private lastCleanup = 0;

  /**
   * `namespace`: limiters with other windows share the table; each names its buckets
   * `<namespace>:…` and cleans up only its own rows (the per-key limiter, with none, only rows
   * without a colon: key ids).
   */
  constructor(private readonly db: Db, readonly limit: number, readonly windowMs = 60_000, syncMs = 1_000, private readonly namespace = '') {
    this.timer = setInterval(() => void this.flush(), syncMs);
    this.timer.unref();
  }

  async hit(bucket: string, now = Date.now()): Promise<RateDecision> {
    return this.decide(bucket, now, true);
  }

  /** What `hit` would answer now, without counting anything (a limit on failures counts only those). */
  async peek(bucket: string, now = Date.now()): Promise<RateDecision> {
    return this.decide(bucket, now, false);
  }

  private async decide(bucket: string, now: number, count: boolean): Promise<RateDecision> {
    const start = now - (now % this.windowMs);
    let w = this.windows.get(bucket);
    if (!w || w.start !== start) {
      // A key new to this process (it may have been served elsewhere this minute) starts from
      // the shared count, not from zero; concurrent first requests wait for the same read.
      const fresh: Window = { start, pending: 0, flushing: 0, shared: 0, loading: null };
      fresh.loading = this.readShared(bucket, fresh).finally(() => { fresh.loading = null; });
      this.windows.set(bucket, fresh);
      w = fresh;
    }
    if (w.loading) await w.loading;
    const resetSeconds = Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
    const used = w.shared + w.flushing + w.pending;
    if (used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    if (!count) return { allowed: true, limit: this.limit, remaining: this.limit - used, resetSeconds };
    w.pending++;
    // A busy key syncs early so that other processes learn of it before the timer fires.
    if (w.pending >= Math.max(10, this.limit / 10)) void this.flush();
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetSeconds };
  }

  private async readShared(bucket: string, w: Window): Promise<void> {
    try {
      const row = await this.db.selectFrom('rate_limit_windows').select('count')
        .where('bucket', '=', bucket).where('window_start', '=', new Date(w.start)).executeTakeFirst();
      if (row) w.shared = Math.max(w.shared, row.count);
    } catch {
      // The store is unreachable: count locally from zero rather than refuse the request.
    }
  }

  /**
   * One sync at a time. A call made while one runs waits for the next, which starts when the
   * current one ends and takes everything counted up to then; calls meanwhile share it.
   */
  flush(): Promise<void> {
    if (!this.running) {
      this.running = this.sync().catch(() => undefined).finally(() => { this.running = null; });
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = null;
      return this.flush();
    });
    return this.queued;
  }

  private async sync(): Promise<void> {
    const now = Date.now();
    const batch: { bucket: string; w: Window; count: number }[] = [];
    const idle: { bucket: string; w: Window }[] = [];
    for (const [bucket, w] of this.windows) {
      if (w.start + this.windowMs < now) this.windows.delete(bucket);
      else if (w.pending > 0) batch.push({ bucket, w, count: w.pending });
      else idle.push({ bucket, w });
    }
    const learn = (rows: { bucket: string; window_start: Date; count: number }[]) => {
      for (const row of rows) {
        const w = this.windows.get(row.bucket);
        if (w && w.start === row.window_start.getTime()) w.shared = row.count;
      }
    };
    if (batch.length) {
      // Counted as `flushing` while the insert runs: a request deciding meanwhile must still see
      // them (it saw too few, and let a sixth sign-in failure through a limit of five).
      for (const b of batch) {
        b.w.pending -= b.count;
        b.w.flushing += b.count;
      }
      try {
        const { rows } = await sql<{ bucket: string; window_start: Date; count: number }>`
          insert into rate_limit_windows (bucket, window_start, count)
          select * from unnest(${batch.map((b) => b.bucket)}::text[], ${batch.map((b) => new Date(b.w.start))}::timestamptz[], ${batch.map((b) => b.count)}::int[])
          on conflict (bucket, window_start) do update set count = rate_limit_windows.count + excluded.count
          returning bucket, window_start, count`.execute(this.db);
        for (const b of batch) b.w.flushing -= b.count;
        learn(rows); // the totals now hold them
      } catch (err) {
        for (const b of batch) {
          b.w.flushing -= b.count;
          b.w.pending += b.count; // keep counting locally; retry next tick
        }
        throw err;
      }
    }
    if (idle.length) {
      // Keys this process served nothing for since the last sync may still be busy elsewhere.
      const { rows } = await sql<{ bucket: string; window_start: Date; count: number }>`
        select r.bucket, r.window_start, r.count from rate_limit_windows r
        join unnest(${idle.map((i) => i.bucket)}::text[], ${idle.map((i) => new Date(i.w.start))}::timestamptz[]) as t(bucket, window_start)
          on r.bucket = t.bucket and r.window_start = t.window_start`.execute(this.db);
      learn(rows);
    }
    if (now - this.lastCleanup > 5 * 60_000) {
      this.lastCleanup = now;
      await this.db.deleteFrom('rate_limit_windows').where('window_start', '<', new Date(now - 10 * this.windowMs))
        .where('bucket', this.namespace ? 'like' : 'not like', this.namespace ? `${this.namespace}:%` : '%:%').execute();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  app.decorate('rateLimiter', limiter);
  const policy = `"default";q=${limiter.limit};w=${Math.round(limiter.windowMs / 1000)}`;
  app.addHook('onRequest', async (req, reply) => {
    if (!req.actor) return;
    // A key's own quota; a signed-in person's quota is their user's (all their sessions together).
    const d = await limiter.hit(req.actor.apiKeyId ?? req.actor.userId);
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"default";r=${d.remaining};t=${d.resetSeconds}`);
    if (!d.allowed) {
      throw new ApiError(429, 'rate_limited', 'Too many requests',
        `${req.actor.apiKeyId ? 'This API key' : 'Your session'} may make ${d.limit} requests a minute; try again in ${d.resetSeconds} s.`, {}, { 'retry-after': String(d.resetSeconds) });
    }
  });
}
