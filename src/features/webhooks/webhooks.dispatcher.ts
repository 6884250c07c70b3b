import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Availability } from '../../db/availability.ts';
import { connectionLimits, guardConnections, type Db } from '../../db/database.ts';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import type { Database } from '../../db/schema.ts';
import { createGuardedAgent } from '../../http/outbound.ts';
import { parseAllowList } from '../../http/ssrf-guard.ts';
import { EventLog, DELIVERIES_CHANNEL } from '../events/events.log.ts';
import { DeliveriesRepository, type ClaimedDelivery, type DisabledReason } from './deliveries.repository.ts';
import { nextAttempt, type RandomSource } from './retry-schedule.ts';
import { attemptDelivery, webhookUserAgent, type Outcome, type Sender } from './webhooks.attempt.ts';
import { LeaseKeeper } from './webhooks.leases.ts';
import { Limiter, SuccessBatcher } from './webhooks.batching.ts';
import { toWebhookView } from './webhooks.views.ts';

/**
 * The webhook delivery engine. Any number of dispatchers (one per worker process) share the queue
 * in webhook_deliveries: each claims due rows in batches under a lease (SKIP LOCKED), sends them
 * concurrently, and records every attempt. It wakes on NOTIFY (an event committed deliveries), on
 * a timer set for the next delivery that becomes due, and on a 1 s safety poll (which also picks
 * up deliveries whose claimer died once their lease has run out).
 */

/** Time as the dispatcher sees it; tests substitute their own. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface DispatcherOptions {
  /** Deliveries in flight at once (default 128). */
  maxInFlight?: number;
  /**
   * Deliveries in flight at once to any one endpoint (default a quarter of maxInFlight: 32), so a
   * receiver that hangs until the timeout cannot hold every slot while others wait.
   */
  maxPerEndpoint?: number;
  /** Largest batch one claim takes (default 64). */
  batchSize?: number;
  /**
   * How long a claim holds a delivery (default 30 s; JOBSITE_WEBHOOK_LEASE_SECONDS). The lease is
   * renewed every third of it until the attempt is recorded, so it may be shorter than timeoutMs:
   * it only bounds how long a crashed worker's deliveries wait before another sends them.
   */
  leaseSeconds?: number;
  /** Deadline of one attempt: connect, headers and body (default 10 s). */
  timeoutMs?: number;
  /** Safety poll interval (default 1 s). */
  pollMs?: number;
  /** Jitter source (default Math.random). */
  random?: RandomSource;
  /** Where the LISTEN connection reconnects after losing it (default 1 s). */
  reconnectMs?: number;
}

export interface DispatcherDeps {
  db: Db;
  /** For the dedicated LISTEN connection. */
  connectionString: string;
  config: Config;
  log: Logger;
  clock?: Clock;
  /** Where an unreachable database is reported (one throttled line), instead of a line per poll. */
  availability?: Availability;
}

/** No success for this long, and the next failure disables the endpoint. */
export const FAILING_DISABLE_MS = 5 * 24 * 3600_000;

export class WebhookDispatcher {
  private readonly db: Db;
  /** The claim loop's own connection (see the constructor). */
  private readonly claimDb: Db;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly repo = new DeliveriesRepository();
  private readonly events = new EventLog();
  /** How each attempt is sent: the SSRF-guarded pool, the User-Agent, the timeout. */
  private readonly sender: Sender;
  private readonly maxInFlight: number;
  private readonly maxPerEndpoint: number;
  /** In-flight deliveries per endpoint id (only endpoints with any). */
  private readonly perEndpoint = new Map<string, number>();
  /** Renews the leases of the deliveries in flight or waiting to be recorded. */
  private readonly leases: LeaseKeeper;
  private readonly batchSize: number;
  private readonly leaseSeconds: number;
  private readonly pollMs: number;
  private readonly reconnectMs: number;
  private readonly random: RandomSource;

  private running = false;
  /** stop() ran out of time: sends without an answer are handed back, not recorded. */
  private abandoning = false;
  private inFlight = 0;
  private readonly sends = new Set<Promise<void>>();
  /** The claim loop, while it runs; `again` asks it for one more round. */
  private pumping: Promise<void> | null = null;
  private again = false;
  /** The last claim came back full or was cut short by the in-flight cap: more may be due. */
  private backlog = false;
  /** Endpoints whose due deliveries the last claims passed over because they were at their share. */
  private readonly blocked = new Set<string>();
  private dueTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private listener: pg.Client | null = null;
  /**
   * Failures take a transaction each, on the process's shared pool: at most a few at once, so a
   * burst of them (a receiver that is down) cannot take every connection from the API.
   */
  private readonly failures = new Limiter(4);
  private readonly successes = new SuccessBatcher((records) => this.repo.recordSuccesses(this.db, records, this.clock.now()));

  constructor(private readonly deps: DispatcherDeps, options: DispatcherOptions = {}) {
    this.db = deps.db;
    // Claims run one at a time on a connection of their own, where (1) the planner never picks
    // a bitmap scan, which would sort every due row to take the first few whenever the table's
    // statistics lag behind a burst, and (2) commits do not wait for the WAL flush: a claim lost
    // in a database crash only means the delivery is claimed, and maybe sent, again (at least
    // once), and any attempt recorded after it is flushed with it.
    const claimPool = new pg.Pool({
      connectionString: deps.connectionString, max: 1, application_name: 'jobsite-webhooks-claim',
      options: '-c enable_bitmapscan=off -c synchronous_commit=off', ...connectionLimits(),
    });
    guardConnections(claimPool);
    this.claimDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: claimPool }) });
    this.log = deps.log;
    this.clock = deps.clock ?? systemClock;
    this.maxInFlight = options.maxInFlight ?? 128;
    this.maxPerEndpoint = Math.max(1, Math.min(options.maxPerEndpoint ?? this.maxInFlight >> 2, this.maxInFlight));
    this.batchSize = Math.min(options.batchSize ?? 64, this.maxInFlight);
    this.leaseSeconds = options.leaseSeconds ?? 30;
    this.leases = new LeaseKeeper(this.db, this.repo, this.leaseSeconds, this.log);
    const timeoutMs = options.timeoutMs ?? 10_000;
    this.pollMs = options.pollMs ?? 1000;
    this.reconnectMs = options.reconnectMs ?? 1000;
    this.random = options.random ?? Math.random;
    const agent = createGuardedAgent({
      allow: parseAllowList(deps.config.webhookAllowPrivate),
      // Per origin, not per endpoint: several endpoints may share a host, so the pool must never be
      // what queues a request (the per-endpoint cap is enforced above it). Twice the slots leaves
      // room for sockets of timed-out requests that are still closing.
      connectionsPerOrigin: 2 * this.maxInFlight,
      connectTimeoutMs: timeoutMs,
    });
    this.sender = { agent, userAgent: webhookUserAgent(deps.config.publicUrl), timeoutMs };
  }

  /** Starts listening and delivering; resolves once LISTEN is in place. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      await this.listen();
    } catch (err) {
      this.running = false;
      throw err;
    }
    this.pollTimer = setInterval(() => this.wake(), this.pollMs);
    this.wake();
  }

  /**
   * Stops claiming, lets the deliveries in flight finish (each within its timeout) and be
   * recorded, and closes the LISTEN connection and the HTTP connections. If `cutoff` fires
   * first, the sends still waiting for an answer are abandoned and handed back: no attempt is
   * recorded and their lease is released, so another worker sends them again at once.
   */
  async stop(cutoff?: AbortSignal): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const timer of [this.dueTimer, this.reconnectTimer]) if (timer) clearTimeout(timer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.dueTimer = this.reconnectTimer = this.pollTimer = null;
    const abandon = () => {
      this.abandoning = true;
      if (this.inFlight) this.log.warn(`Handing ${this.inFlight} webhook delivery(ies) in flight back to the queue`);
      // Fails every request in flight at once; deliver() then releases the lease.
      void this.sender.agent.destroy().catch(() => undefined);
    };
    if (cutoff?.aborted) abandon();
    else cutoff?.addEventListener('abort', abandon, { once: true });
    try {
      const listener = this.listener;
      this.listener = null;
      await listener?.end().catch(() => undefined);
      await this.pumping;
      await this.idle();
    } finally {
      cutoff?.removeEventListener('abort', abandon);
    }
    await this.claimDb.destroy().catch(() => undefined);
    await this.sender.agent.close().catch(() => undefined);
  }

  /** Looks for due deliveries now (NOTIFY, timers and tests call it). */
  wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((err: unknown) => this.report(err, 'claiming webhook deliveries failed'))
      .finally(() => {
        this.pumping = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Resolves when nothing is in flight or waiting to be recorded (tests use it). */
  async idle(): Promise<void> {
    while (this.sends.size || this.pumping) {
      await Promise.all([...this.sends, this.pumping]);
    }
    await this.successes.flushed();
  }

  private async listen(): Promise<void> {
    const { connectionTimeoutMillis, keepAlive, keepAliveInitialDelayMillis } = connectionLimits();
    const client = new pg.Client({
      connectionString: this.deps.connectionString, application_name: 'jobsite-webhooks', connectionTimeoutMillis, keepAlive, keepAliveInitialDelayMillis,
    });
    const reconnect = (err?: unknown) => {
      if (this.listener !== client) return;
      this.listener = null;
      client.removeAllListeners('end');
      client.end().catch(() => undefined);
      if (!this.running) return;
      this.report(err, 'lost the webhook LISTEN connection; reconnecting', {}, 'warn');
      this.scheduleReconnect();
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect(new Error('Connection terminated')));
    client.on('notification', () => this.wake());
    this.listener = client;
    try {
      await client.connect();
      await client.query(`listen ${DELIVERIES_CHANNEL}`);
    } catch (err) {
      if (this.listener === client) this.listener = null;
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  private scheduleReconnect(): void {
    if (!this.running) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.running) return;
      this.listen().then(() => this.wake(), (err: unknown) => {
        this.report(err, 'reconnecting the webhook LISTEN connection failed', {}, 'warn');
        this.scheduleReconnect();
      });
    }, this.reconnectMs);
  }

  /** A failure: an unreachable database goes to the availability tracker (throttled), anything else to the log. */
  private report(err: unknown, message: string, context: Record<string, unknown> = {}, level: 'warn' | 'error' = 'error'): void {
    if (this.deps.availability && isDatabaseUnavailable(err)) this.deps.availability.failed(err, 'webhooks');
    else this.log[level]({ err, ...context }, message);
  }

  /** Claims and starts due deliveries while there is room and due work, then arms the timer. */
  private async pump(): Promise<void> {
    for (;;) {
      this.again = false;
      const room = this.maxInFlight - this.inFlight;
      if (room <= 0) {
        this.backlog = true; // a finishing delivery wakes us
        return;
      }
      const limit = Math.min(room, this.batchSize);
      const busy = new Map([...this.perEndpoint].map(([id, n]) => [id, this.maxPerEndpoint - n]));
      const claimed = await this.repo.claim(this.claimDb, limit, this.leaseSeconds, { perEndpoint: this.maxPerEndpoint, busy });
      for (const delivery of claimed) this.launch(delivery);
      this.backlog = claimed.length === limit;
      if (!this.running) return;
      // An endpoint that got all of its share probably has more due: it is blocked until half
      // its share is free again (see launch), and if some already is (deliveries
      // finished during the claim), or it hid others' due deliveries, look again at once.
      let more = false;
      const taken = new Map<string, number>();
      for (const d of claimed) taken.set(d.endpoint_id, (taken.get(d.endpoint_id) ?? 0) + 1);
      for (const [id, free] of busy) if (free <= 0) this.blocked.add(id);
      for (const [id, n] of taken) {
        if (n < (busy.get(id) ?? this.maxPerEndpoint)) continue;
        this.blocked.add(id);
        more = true;
      }
      if (!this.backlog && !this.again && !more) break;
    }
    await this.armDueTimer();
  }

  /** Sets the timer for the next delivery that becomes due (the poll covers anything later than it). */
  private async armDueTimer(): Promise<void> {
    const next = await this.repo.nextDueAt(this.claimDb);
    if (!this.running) return;
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    if (!next) return;
    const delay = next.getTime() - Date.now();
    if (delay >= this.pollMs) return;
    this.dueTimer = setTimeout(() => {
      this.dueTimer = null;
      this.wake();
    }, Math.max(0, delay) + 1);
  }

  private launch(delivery: ClaimedDelivery): void {
    const endpointId = delivery.endpoint_id;
    this.leases.hold(delivery);
    this.inFlight++;
    this.perEndpoint.set(endpointId, (this.perEndpoint.get(endpointId) ?? 0) + 1);
    const done = this.deliver(delivery)
      .catch((err: unknown) => {
        // The lease runs out and the delivery is claimed again.
        this.report(err, 'recording a webhook attempt failed', { delivery: delivery.id });
      })
      .finally(() => {
        this.leases.release(delivery);
        this.inFlight--;
        this.sends.delete(done);
        const n = this.perEndpoint.get(endpointId)! - 1;
        if (n) this.perEndpoint.set(endpointId, n);
        else this.perEndpoint.delete(endpointId);
        // Claim again once a quarter of the slots are free (not for every single one), or half
        // the share of an endpoint whose due deliveries were passed over.
        let wake = this.backlog && this.maxInFlight - this.inFlight >= Math.max(1, this.maxInFlight >> 2);
        if (this.blocked.has(endpointId) && this.maxPerEndpoint - n >= Math.max(1, this.maxPerEndpoint >> 1)) {
          this.blocked.delete(endpointId);
          wake = true;
        }
        if (wake) this.wake();
      });
    this.sends.add(done);
  }

  private async deliver(d: ClaimedDelivery): Promise<void> {
    if (!d.enabled || !d.url || !d.secret) {
      await this.failures.run(() => this.repo.failUnsent(this.db, d.id, d.lease_token, this.clock.now()));
      return;
    }
    const outcome = await attemptDelivery(d, this.sender, this.clock.now());
    if (this.abandoning && outcome.record.statusCode === null) {
      await this.repo.releaseUnsent(this.db, d.id);
      return;
    }
    if (outcome.ok) {
      await this.successes.add(outcome.record);
    } else {
      await this.failures.run(() => this.recordFailure(d, outcome));
    }
  }

  /**
   * A failed attempt, in one transaction with the endpoint locked: the attempt, the delivery's
   * next attempt (or its end), the endpoint's failing_since, and, on 410 or after 5 days of
   * failures, disabling the endpoint with a webhook.disabled event to the workspace's others.
   */
  private async recordFailure(d: ClaimedDelivery, outcome: Outcome): Promise<void> {
    const now = this.clock.now();
    const { record } = outcome;
    const lastError = record.error ?? `HTTP ${record.statusCode}`;
    await this.db.transaction().execute(async (tx) => {
      const endpoint = await this.repo.lockEndpoint(tx, d.endpoint_id);
      if (!endpoint) return; // deleted meanwhile, with its deliveries
      let disable: DisabledReason | null = null;
      if (endpoint.enabled) {
        if (outcome.gone) disable = 'gone';
        else if (endpoint.failing_since && now.getTime() - endpoint.failing_since.getTime() >= FAILING_DISABLE_MS) disable = 'failing';
      }
      const next = endpoint.enabled && !disable ? nextAttempt(d.attempt_count, outcome.retryAfterMs, this.random) : { retry: false as const };
      const nextAt = next.retry ? new Date(now.getTime() + next.delayMs) : null;
      const error = !endpoint.enabled || disable ? 'endpoint disabled' : lastError;
      const recorded = await this.repo.recordFailure(tx, record, nextAt, error, now);
      if (recorded === 'lost') this.log.warn({ delivery: d.id }, 'a webhook delivery whose lease was lost failed; logged as an attempt only');
      if (recorded !== 'recorded') return;
      await this.repo.markFailing(tx, endpoint.id, now);
      if (disable) {
        const row = await this.repo.disableEndpoint(tx, endpoint.id, disable, now);
        await this.events.emit(tx, { workspaceId: endpoint.workspace_id, event: 'webhook.disabled', projectId: null, data: toWebhookView(row) });
        this.log.warn({ endpoint: endpoint.id, reason: disable }, 'webhook endpoint disabled');
      }
    });
  }
}
