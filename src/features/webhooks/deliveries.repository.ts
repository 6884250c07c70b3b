import { sql } from 'kysely';
import type { Db, Executor } from '../../db/database.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { WebhookRow } from './webhooks.views.ts';

/**
 * The delivery queue's SQL: claiming due deliveries under a lease, renewing it while they are in
 * flight, and recording what each attempt did. webhook_deliveries is the queue (see migrations
 * 003 and 013); only the dispatcher uses this.
 *
 * Every claim sets a fresh lease_token. Whatever the claimer writes afterwards (renewals, the
 * attempt's outcome) requires that token: a claimer that lost its lease (it ran out and another
 * claimed the delivery) logs its attempt but leaves the delivery to the claimer that holds it.
 */

/** A claimed delivery, with what sending it needs. Endpoint fields are null when it was deleted. */
export interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  /** This attempt's number (1-based): the claim counted it. */
  attempt_count: number;
  /** This claim's token: the delivery's state is this claimer's to record only while the row still carries it. */
  lease_token: string;
  url: string | null;
  secret: string | null;
  /** The previous secret while it still signs (a rotation less than 24 h ago), else null. */
  previous_secret: string | null;
  enabled: boolean | null;
  event: string;
  payload: string;
}

/** One attempt, as recorded. */
export interface AttemptRecord {
  deliveryId: string;
  /** The claim the attempt was made under. */
  leaseToken: string;
  endpointId: string;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/** An endpoint's state that failures decide on, read under a row lock. */
export interface EndpointHealth {
  id: string;
  workspace_id: string;
  enabled: boolean;
  failing_since: Date | null;
}

export type DisabledReason = 'gone' | 'failing';

/** What recording a failed attempt came to: `lost` when another claimer holds the delivery now. */
export type FailureRecorded = 'recorded' | 'lost' | 'deleted';

/** A delivery this claimer holds: its id and its claim's token. */
export interface HeldLease {
  id: string;
  token: string;
}

export class DeliveriesRepository {
  /**
   * Claims up to `limit` due deliveries for `leaseSeconds`: rows other claimers hold are skipped
   * (SKIP LOCKED) and rows leased by a live claimer are not due, so no delivery is sent twice at
   * once; a crashed claimer's rows come back when their lease runs out. Counts the attempt.
   *
   * Takes at most `room.perEndpoint` deliveries for any one endpoint, fewer for those listed in
   * `room.busy` (endpoint id -> free slots, 0 for none): among the earliest due deliveries, the
   * first few of each endpoint. The candidates are read without locks, so the locking step checks
   * again that each is still due and unleased (another claimer may just have taken it).
   */
  async claim(db: Db, limit: number, leaseSeconds: number, room: { perEndpoint: number; busy: ReadonlyMap<string, number> }): Promise<ClaimedDelivery[]> {
    const full = [...room.busy].filter(([, free]) => free <= 0).map(([id]) => id);
    const partial = [...room.busy].filter(([, free]) => free > 0);
    const { rows } = await sql<ClaimedDelivery>`
      with candidates as (
        select id, endpoint_id, next_attempt_at
          from webhook_deliveries
         where status = 'pending' and next_attempt_at <= now()
           and (lease_until is null or lease_until < now())
           and endpoint_id <> all(${full}::text[])
         order by next_attempt_at
         limit ${Math.max(4 * limit, 256)}
      ), ranked as (
        select c.id, c.next_attempt_at, coalesce(b.free, ${room.perEndpoint}) as free,
               row_number() over (partition by c.endpoint_id order by c.next_attempt_at, c.id) as rank
          from candidates c
          left join unnest(${partial.map(([id]) => id)}::text[], ${partial.map(([, free]) => free)}::int[]) as b(endpoint_id, free)
            on b.endpoint_id = c.endpoint_id
      ), locked as (
        select d.id
          from webhook_deliveries d
         where d.id = any(array(select id from ranked where rank <= free order by next_attempt_at limit ${limit}))
           -- status <> …, not status = 'pending': that would let the planner pick the partial index over the primary key
           and d.status <> 'succeeded' and d.status <> 'failed' and d.next_attempt_at <= now()
           and (d.lease_until is null or d.lease_until < now())
           for update skip locked
      ), claimed as (
        update webhook_deliveries d
           set lease_until = now() + make_interval(secs => ${leaseSeconds}),
               lease_token = gen_random_uuid(),
               attempt_count = d.attempt_count + 1
          from locked l
         where d.id = l.id
        returning d.id, d.workspace_id, d.endpoint_id, d.event_id, d.attempt_count, d.lease_token, d.next_attempt_at
      )
      select c.id, c.workspace_id, c.endpoint_id, c.event_id, c.attempt_count, c.lease_token::text as lease_token,
             e.url, e.secret, e.enabled,
             case when e.previous_secret_expires_at > now() then e.previous_secret end as previous_secret,
             ev.event, ev.payload
        from claimed c
        join events ev on ev.id = c.event_id
        left join webhook_endpoints e on e.id = c.endpoint_id
       order by c.next_attempt_at`.execute(db);
    return rows;
  }

  /**
   * Extends the lease of the deliveries this claimer holds and still has to record, to
   * `leaseSeconds` from now. A delivery whose attempt is already recorded (no lease) is left as it
   * is. Returns the ids of those whose lease was lost: another claimer took them.
   */
  async renewLeases(db: Db, held: readonly HeldLease[], leaseSeconds: number): Promise<string[]> {
    if (!held.length) return [];
    const { rows } = await sql<{ id: string }>`
      with held as (
        select * from unnest(${held.map((h) => h.id)}::text[], ${held.map((h) => h.token)}::uuid[]) as h(id, token)
      ), renewed as (
        update webhook_deliveries d
           set lease_until = now() + make_interval(secs => ${leaseSeconds})
          from held h
         where d.id = h.id and d.lease_token = h.token and d.status = 'pending' and d.lease_until is not null
        returning d.id
      )
      select d.id from webhook_deliveries d join held h on h.id = d.id where d.lease_token is distinct from h.token`.execute(db);
    return rows.map((r) => r.id);
  }

  /** When the next delivery not yet due becomes due, if any. */
  async nextDueAt(db: Db): Promise<Date | null> {
    const row = await db.selectFrom('webhook_deliveries').select('next_attempt_at')
      .where('status', '=', 'pending').where('next_attempt_at', '>', sql<Date>`now()`)
      .orderBy('next_attempt_at').limit(1).executeTakeFirst();
    return row?.next_attempt_at ?? null;
  }

  /**
   * Records successful attempts, any number in one transaction: the endpoints first (in id order,
   * the order every writer locks endpoints before their deliveries), then the deliveries and
   * their attempts. A delivery deleted meanwhile (its endpoint was) records nothing; one whose
   * lease was lost gets its attempt logged and is otherwise left to the claimer that holds it.
   */
  async recordSuccesses(db: Db, records: readonly AttemptRecord[], now: Date): Promise<void> {
    const endpointIds = [...new Set(records.map((r) => r.endpointId))].sort();
    await db.transaction().execute(async (tx) => {
      await sql`
        update webhook_endpoints set last_success_at = ${now}, failing_since = null
         where id in (select id from webhook_endpoints where id = any(${endpointIds}::text[]) order by id for no key update)`.execute(tx);
      await sql`
        with input as (
          select * from unnest(${records.map((r) => r.deliveryId)}::text[], ${records.map((r) => r.attemptedAt)}::timestamptz[],
                               ${records.map((r) => r.statusCode)}::int[], ${records.map((r) => r.durationMs)}::int[],
                               ${records.map((r) => r.responseExcerpt)}::text[], ${records.map((r) => r.leaseToken)}::uuid[])
                 as t(delivery_id, attempted_at, status_code, duration_ms, response_excerpt, lease_token)
        ), updated as (
          update webhook_deliveries d
             set status = 'succeeded', completed_at = ${now}, last_status_code = i.status_code, last_error = null,
                 lease_until = null, updated_at = ${now}
            from input i
           where d.id = i.delivery_id and d.lease_token = i.lease_token
          returning d.id
        )
        -- Lost leases included: the receiver did get those requests. (The endpoint locks above keep
        -- their deliveries from being deleted until this commits.)
        insert into webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error)
        select i.delivery_id, i.attempted_at, i.status_code, i.duration_ms, i.response_excerpt, null
          from input i
         where exists (select 1 from webhook_deliveries d where d.id = i.delivery_id)`.execute(tx);
    });
  }

  /** Locks the endpoint (before any of its deliveries: the lock order of every writer). */
  lockEndpoint(tx: Executor, id: string): Promise<EndpointHealth | undefined> {
    return tx.selectFrom('webhook_endpoints').select(['id', 'workspace_id', 'enabled', 'failing_since'])
      .where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
  }

  /** Marks the endpoint failing since `at` unless it already is. */
  async markFailing(tx: Executor, id: string, at: Date): Promise<void> {
    await tx.updateTable('webhook_endpoints').set({ failing_since: at })
      .where('id', '=', id).where('failing_since', 'is', null).execute();
  }

  /**
   * Records a failed attempt and what follows: another attempt at `nextAttemptAt`, or (null)
   * none. A delivery that is no longer pending (its endpoint was disabled meanwhile) stays as it
   * is. A delivery another claimer holds now (`lost`) only gets the attempt logged: its state,
   * lease included, is the other claimer's.
   */
  async recordFailure(tx: Executor, record: AttemptRecord, nextAttemptAt: Date | null, lastError: string, now: Date): Promise<FailureRecorded> {
    const updated = await tx.updateTable('webhook_deliveries')
      .set({
        status: nextAttemptAt ? sql`case when status = 'pending' then 'pending' else status end` : sql`'failed'`,
        next_attempt_at: nextAttemptAt ? sql`case when status = 'pending' then ${nextAttemptAt}::timestamptz else next_attempt_at end` : sql`next_attempt_at`,
        completed_at: nextAttemptAt ? sql`completed_at` : sql`coalesce(completed_at, ${now}::timestamptz)`,
        last_status_code: record.statusCode,
        last_error: lastError,
        lease_until: null,
        updated_at: now,
      })
      .where('id', '=', record.deliveryId).where('lease_token', '=', record.leaseToken)
      .returning('id').executeTakeFirst();
    if (updated) {
      await this.insertAttempt(tx, record);
      return 'recorded';
    }
    const held = await tx.selectFrom('webhook_deliveries').select('id').where('id', '=', record.deliveryId).forKeyShare().executeTakeFirst();
    if (!held) return 'deleted';
    await this.insertAttempt(tx, record);
    return 'lost';
  }

  async insertAttempt(tx: Executor, r: AttemptRecord): Promise<void> {
    await tx.insertInto('webhook_attempts').values({
      delivery_id: r.deliveryId,
      attempted_at: r.attemptedAt,
      status_code: r.statusCode,
      duration_ms: r.durationMs,
      response_excerpt: r.responseExcerpt,
      error: r.error,
    }).execute();
  }

  /**
   * Disables the endpoint and fails its pending deliveries (the one just attempted included);
   * returns the endpoint as it is now.
   */
  async disableEndpoint(tx: Executor, id: string, reason: DisabledReason, now: Date): Promise<WebhookRow> {
    const row = await tx.updateTable('webhook_endpoints')
      .set({ enabled: false, disabled_reason: reason, disabled_at: now, updated_at: bumpUpdatedAt })
      .where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await this.failPending(tx, id, now);
    return row;
  }

  /** Every pending delivery of the endpoint becomes failed ('endpoint disabled'). */
  async failPending(tx: Executor, endpointId: string, now: Date): Promise<void> {
    await tx.updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: 'endpoint disabled', completed_at: now, lease_until: null, updated_at: now })
      .where('endpoint_id', '=', endpointId).where('status', '=', 'pending').execute();
  }

  /**
   * Hands a claimed delivery back unsent (its worker is shutting down): the lease is released and
   * the claim's count taken back, so the next claim, by any worker, sends it at once.
   */
  async releaseUnsent(db: Db, deliveryId: string): Promise<void> {
    await db.updateTable('webhook_deliveries')
      .set({ lease_until: null, attempt_count: sql`greatest(attempt_count - 1, 0)` })
      .where('id', '=', deliveryId).where('status', '=', 'pending').execute();
  }

  /**
   * A delivery claimed for an endpoint that is disabled or gone fails without an attempt (the
   * claim's count is taken back).
   */
  async failUnsent(db: Db, deliveryId: string, leaseToken: string, now: Date): Promise<void> {
    await db.updateTable('webhook_deliveries')
      .set({
        status: 'failed', last_error: 'endpoint disabled', completed_at: now, lease_until: null, updated_at: now,
        attempt_count: sql`greatest(attempt_count - 1, 0)`,
      })
      .where('id', '=', deliveryId).where('lease_token', '=', leaseToken).where('status', '=', 'pending').execute();
  }
}
