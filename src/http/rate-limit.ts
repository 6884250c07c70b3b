import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { ApiError } from './errors.ts';

interface Window {
  start: number;
  /** Requests counted here and not yet added to the shared row. */
  pending: number;
  /** The shared count (all processes) as of our last sync. */
  shared: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Fixed one-minute windows per API key, shared across processes through PostgreSQL without a
 * write per request: each process counts locally and adds its counts to the shared row about
 * once a second (or sooner when a key is busy), reading back the total that all processes
 * have used. A process therefore overshoots by at most what other processes served since the
 * last sync.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private lastCleanup = 0;

  constructor(private readonly db: Db, readonly limit: number, private readonly windowMs = 60_000, syncMs = 1_000) {
    this.timer = setInterval(() => void this.flush(), syncMs);
    this.timer.unref();
  }

  hit(bucket: string, now = Date.now()): RateDecision {
    const start = now - (now % this.windowMs);
    let w = this.windows.get(bucket);
    if (!w || w.start !== start) {
      w = { start, pending: 0, shared: 0 };
      this.windows.set(bucket, w);
    }
    const resetSeconds = Math.max(1, Math.ceil((start + this.windowMs - now) / 1000));
    const used = w.shared + w.pending;
    if (used >= this.limit) return { allowed: false, limit: this.limit, remaining: 0, resetSeconds };
    w.pending++;
    // A busy key syncs early so that other processes learn of it before the timer fires.
    if (w.pending >= Math.max(10, this.limit / 10)) void this.flush();
    return { allowed: true, limit: this.limit, remaining: this.limit - used - 1, resetSeconds };
  }

  async flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.sync().catch(() => undefined).finally(() => { this.flushing = null; });
    return this.flushing;
  }

  private async sync(): Promise<void> {
    const now = Date.now();
    const batch: { bucket: string; w: Window; count: number }[] = [];
    for (const [bucket, w] of this.windows) {
      if (w.start + this.windowMs < now) this.windows.delete(bucket);
      else if (w.pending > 0) batch.push({ bucket, w, count: w.pending });
    }
    if (batch.length) {
      for (const b of batch) b.w.pending -= b.count;
      try {
        const { rows } = await sql<{ bucket: string; window_start: Date; count: number }>`
          insert into rate_limit_windows (bucket, window_start, count)
          select * from unnest(${batch.map((b) => b.bucket)}::text[], ${batch.map((b) => new Date(b.w.start))}::timestamptz[], ${batch.map((b) => b.count)}::int[])
          on conflict (bucket, window_start) do update set count = rate_limit_windows.count + excluded.count
          returning bucket, window_start, count`.execute(this.db);
        for (const row of rows) {
          const w = this.windows.get(row.bucket);
          if (w && w.start === row.window_start.getTime()) w.shared = row.count;
        }
      } catch (err) {
        for (const b of batch) b.w.pending += b.count; // keep counting locally; retry next tick
        throw err;
      }
    }
    if (now - this.lastCleanup > 5 * 60_000) {
      this.lastCleanup = now;
      await this.db.deleteFrom('rate_limit_windows').where('window_start', '<', new Date(now - 10 * this.windowMs)).execute();
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  const policy = `"default";q=${limiter.limit};w=60`;
  app.addHook('onRequest', async (req, reply) => {
    if (!req.actor) return;
    const d = limiter.hit(req.actor.apiKeyId);
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', `"default";r=${d.remaining};t=${d.resetSeconds}`);
    if (!d.allowed) {
      throw new ApiError(429, 'rate_limited', 'Too many requests',
        `This API key may make ${d.limit} requests a minute; try again in ${d.resetSeconds} s.`, {}, { 'retry-after': String(d.resetSeconds) });
    }
  });
}
