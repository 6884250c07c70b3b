import type { Logger } from 'pino';
import type { Db } from '../../db/database.ts';
import type { ClaimedDelivery, DeliveriesRepository } from './deliveries.repository.ts';

/**
 * Keeps the leases of one dispatcher's deliveries alive from claim until their attempt is
 * recorded: every third of the lease, one UPDATE extends all of them. A receiver slower than the
 * lease, or a slow database when recording, must not let another worker send a delivery again;
 * the lease itself then only bounds how long a crashed worker's deliveries wait. The timer runs
 * only while something is held.
 */
export class LeaseKeeper {
  /** Delivery id -> the token of this dispatcher's claim. */
  private readonly held = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly repo: DeliveriesRepository,
    private readonly leaseSeconds: number,
    private readonly log: Logger,
  ) {}

  hold(d: ClaimedDelivery): void {
    this.held.set(d.id, d.lease_token);
    if (this.timer) return;
    this.timer = setInterval(() => this.renew(), Math.max(100, Math.floor(this.leaseSeconds * 1000 / 3)));
  }

  release(d: ClaimedDelivery): void {
    // Once recorded, the delivery may already be claimed again (a retry due at once), by this dispatcher too.
    if (this.held.get(d.id) === d.lease_token) this.held.delete(d.id);
    if (this.held.size || !this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
  }

  private renew(): void {
    if (this.renewing || !this.held.size) return;
    const held = [...this.held].map(([id, token]) => ({ id, token }));
    this.renewing = this.repo.renewLeases(this.db, held, this.leaseSeconds)
      .then((lost) => {
        for (const id of lost) {
          if (!this.held.has(id)) continue;
          this.log.warn({ delivery: id }, 'lost the lease of a webhook delivery in flight (another worker claimed it); its outcome will be logged as an attempt only');
        }
      })
      // The next tick tries again; if the lease runs out meanwhile, the token keeps the two claimers' records apart.
      .catch((err: unknown) => this.log.warn({ err }, 'renewing webhook delivery leases failed'))
      .finally(() => {
        this.renewing = null;
      });
  }
}
