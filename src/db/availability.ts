import type { Logger } from 'pino';

/**
 * Whether a dependency (the database, the blob store) is reachable, as this process sees it, and
 * the one place that logs about it: one warning when it goes away, one info line when it is back,
 * and in between at most one reminder per `quietMs` (30 s), however many requests, polls, jobs
 * and reconnects fail meanwhile. While it is down, a probe checks every `probeMs` (1 s), so
 * recovery is noticed without any traffic.
 */
export interface AvailabilityOptions {
  /** What is reachable or not, for the messages: `database`, `blob store`. */
  name: string;
  log: Pick<Logger, 'warn' | 'info'>;
  /** Resolves when the dependency answers; without one, recovery is only what callers report. */
  probe?: () => Promise<unknown>;
  probeMs?: number;
  quietMs?: number;
  now?: () => number;
}

export class Availability {
  readonly name: string;
  private down: { since: number; failures: number; lastLogged: number; suppressed: number; error: string } | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private probing = false;
  private stopped = false;
  private readonly log: AvailabilityOptions['log'];
  private readonly probe?: () => Promise<unknown>;
  private readonly probeMs: number;
  private readonly quietMs: number;
  private readonly now: () => number;

  constructor(options: AvailabilityOptions) {
    this.name = options.name;
    this.log = options.log;
    this.probe = options.probe;
    this.probeMs = options.probeMs ?? 1000;
    this.quietMs = options.quietMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  get isDown(): boolean {
    return this.down !== null;
  }

  /** Seconds it has been down (0 when up): for Retry-After and /readyz. */
  get downForSeconds(): number {
    return this.down ? Math.round((this.now() - this.down.since) / 1000) : 0;
  }

  /** Something failed because the dependency is unreachable (`source`: who noticed, for the log). */
  failed(err: unknown, source: string): void {
    const now = this.now();
    const error = describe(err);
    if (!this.down) {
      this.down = { since: now, failures: 1, lastLogged: now, suppressed: 0, error };
      // A process shutting down stops its own database (embedded) last: what fails then is not news.
      if (this.stopped) return;
      this.log.warn({ dependency: this.name, source, error }, `${this.name} unreachable; answering 503 and retrying until it is back`);
      // Not at once: while a server shuts down, a pooled connection whose backend has not yet been
      // told to go may still answer `select 1`, and the outage would be logged as over and begun again.
      this.scheduleProbe(this.probeMs);
      return;
    }
    this.down.failures++;
    this.down.error = error;
    if (!this.stopped && now - this.down.lastLogged >= this.quietMs) {
      this.log.warn({ dependency: this.name, source, error, failures: this.down.failures, down_s: Math.round((now - this.down.since) / 1000) },
        `${this.name} still unreachable`);
      this.down.lastLogged = now;
    }
  }

  /** The dependency answered again (the probe, or any caller that just used it successfully). */
  recovered(): void {
    if (!this.down) return;
    const { since, failures } = this.down;
    this.down = null;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    this.log.info({ dependency: this.name, down_s: Math.round((this.now() - since) / 1000), failures }, `${this.name} reachable again`);
  }

  /** Checks now (e.g. /readyz): resolves true when up; a failure counts like any other. */
  async check(): Promise<boolean> {
    if (!this.probe) return !this.down;
    try {
      await this.probe();
      this.recovered();
      return true;
    } catch (err) {
      this.failed(err, 'probe');
      return false;
    }
  }

  /** The process is shutting down: no more probes, and no more outage lines. */
  stop(): void {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
  }

  private scheduleProbe(delay: number): void {
    if (!this.probe || this.stopped || this.probeTimer || this.probing) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.probing = true;
      this.probe!().then(() => {
        this.probing = false;
        this.recovered();
      }, () => {
        // Not counted as a failure: the probe's own retries are not news.
        this.probing = false;
        if (this.down) this.scheduleProbe(this.probeMs);
      });
    }, delay);
    this.probeTimer.unref();
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${typeof code === 'string' && !err.message.includes(code) ? `${code}: ` : ''}${err.message || err.name}`;
  }
  return String(err);
}
