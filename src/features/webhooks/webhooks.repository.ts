import { sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { WebhookDeliveryStatus, WebhookEndpointsTable } from '../../db/schema.ts';
import { newId } from '../../ids.ts';
import { DELIVERIES_CHANNEL } from '../events/events.log.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { AttemptRow, DeliveryRow, WebhookRow } from './webhooks.views.ts';

export interface NewWebhook {
  workspaceId: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  secret: string;
  createdBy: string;
}

export interface DeliveryFilters {
  limit: number;
  status?: WebhookDeliveryStatus | undefined;
  event?: string | undefined;
}

/** The attempts the delivery log shows per delivery (the latest ones; `attempt_count` has the total). */
export const ATTEMPTS_SHOWN = 25;

/** Rows per INSERT when queuing a replay: well under PostgreSQL's 65,535 bind parameters. */
const INSERT_CHUNK = 2_000;

const DELIVERY_COLUMNS = [
  'd.id', 'd.event_id', 'e.event', 'd.status', 'd.attempt_count', 'd.next_attempt_at', 'd.last_status_code',
  'd.last_error', 'd.created_at', 'd.updated_at', 'd.completed_at',
] as const;

/** Webhook endpoints and, for the API, their delivery log (the dispatcher has its own queries). */
export class WebhooksRepository {
  insert(db: Executor, w: NewWebhook): Promise<WebhookRow> {
    const now = new Date();
    return db.insertInto('webhook_endpoints').values({
      id: newId('webhook'),
      workspace_id: w.workspaceId,
      url: w.url,
      description: w.description,
      events: w.events,
      enabled: w.enabled,
      secret: w.secret,
      disabled_reason: w.enabled ? null : 'manual',
      disabled_at: w.enabled ? null : now,
      created_by: w.createdBy,
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow();
  }

  /**
   * How many endpoints the workspace has, counted under a lock on the workspace row that every
   * creation takes first: two creations at once take turns, so neither can pass a limit the other
   * is about to reach. (NO KEY UPDATE: inserts elsewhere that reference the workspace do not wait.)
   */
  async countForCreate(tx: Executor, workspaceId: string): Promise<number> {
    await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forNoKeyUpdate().execute();
    const row = await tx.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<string>().as('n'))
      .where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  get(db: Executor, workspaceId: string, id: string): Promise<WebhookRow | undefined> {
    return db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  }

  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<WebhookRow | undefined> {
    return db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id)
      .forUpdate().executeTakeFirst();
  }

  list(db: Executor, workspaceId: string, limit: number, after: string | null): Promise<WebhookRow[]> {
    let q = db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId);
    if (after) q = q.where('id', '<', after);
    return q.orderBy('id', 'desc').limit(limit + 1).execute();
  }

  update(db: Executor, id: string, changes: Omit<Updateable<WebhookEndpointsTable>, 'id' | 'workspace_id' | 'updated_at'>): Promise<WebhookRow> {
    return db.updateTable('webhook_endpoints').set({ ...changes, updated_at: bumpUpdatedAt })
      .where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  }

  /** A disabled endpoint's queue is closed: its pending deliveries fail with `error`. */
  async failPendingDeliveries(db: Executor, endpointId: string, error: string): Promise<number> {
    const result = await db.updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: error, next_attempt_at: null, lease_until: null, completed_at: sql`now()`, updated_at: sql`now()` })
      .where('endpoint_id', '=', endpointId).where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  // ── Delivery log ─────────────────────────────────────────────────────────────────────────

  listDeliveries(db: Executor, endpointId: string, filters: DeliveryFilters, after: string | null): Promise<DeliveryRow[]> {
    let q = db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id')
      .select(DELIVERY_COLUMNS).where('d.endpoint_id', '=', endpointId);
    if (filters.status) q = q.where('d.status', '=', filters.status);
    if (filters.event) q = q.where('e.event', '=', filters.event);
    if (after) q = q.where('d.id', '<', after);
    return q.orderBy('d.id', 'desc').limit(filters.limit + 1).execute();
  }

  getDelivery(db: Executor, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
    return db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id')
      .select(DELIVERY_COLUMNS).where('d.endpoint_id', '=', endpointId).where('d.id', '=', id).executeTakeFirst();
  }

  /** The latest ATTEMPTS_SHOWN attempts of each delivery, oldest first: one query for a whole page. */
  async attemptsOf(db: Executor, deliveryIds: readonly string[]): Promise<Map<string, AttemptRow[]>> {
    const byDelivery = new Map<string, AttemptRow[]>(deliveryIds.map((id) => [id, []]));
    if (!deliveryIds.length) return byDelivery;
    const rows = await db.selectFrom((eb) => eb.selectFrom('webhook_attempts')
      .select(['id', 'delivery_id', 'attempted_at', 'status_code', 'duration_ms', 'response_excerpt', 'error',
        sql<number>`row_number() over (partition by delivery_id order by id desc)`.as('recency')])
      .where('delivery_id', 'in', deliveryIds)
      .as('a'))
      .select(['a.delivery_id', 'a.attempted_at', 'a.status_code', 'a.duration_ms', 'a.response_excerpt', 'a.error'])
      .where('a.recency', '<=', ATTEMPTS_SHOWN)
      .orderBy('a.delivery_id').orderBy('a.id')
      .execute();
    for (const row of rows) byDelivery.get(row.delivery_id)?.push(row);
    return byDelivery;
  }

  /**
   * Queues a delivery again, due now, keeping its attempt count. A pending delivery that a
   * dispatcher holds under lease keeps its lease: that attempt's outcome then decides.
   */
  async requeueDelivery(db: Executor, endpointId: string, id: string): Promise<boolean> {
    const result = await db.updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        next_attempt_at: sql`now()`,
        lease_until: sql`case when status = 'pending' then lease_until end`,
        completed_at: null,
        updated_at: bumpUpdatedAt,
      })
      .where('endpoint_id', '=', endpointId).where('id', '=', id)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    await this.wakeDispatcher(db);
    return true;
  }

  /**
   * The ids of the events in [since, until) that an endpoint with these patterns receives,
   * oldest first, at most `limit` of them. Pings are never replayed: each was meant for one
   * endpoint, once.
   */
  async eventIdsForReplay(db: Executor, workspaceId: string, patterns: readonly string[], since: Date, until: Date, limit: number): Promise<string[]> {
    const rows = await db.selectFrom('events').select('id')
      .where('workspace_id', '=', workspaceId)
      .where('created_at', '>=', since).where('created_at', '<', until)
      .where('event', '<>', 'webhook.ping')
      .where(sql<boolean>`array['*', split_part(event, '.', 1) || '.*', event] && ${patterns}::text[]`)
      .orderBy('created_at').orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /** New deliveries of these events to one endpoint, due now; the dispatcher is woken on commit. */
  async queueDeliveries(db: Executor, workspaceId: string, endpointId: string, eventIds: readonly string[]): Promise<void> {
    if (!eventIds.length) return;
    const now = new Date();
    for (let i = 0; i < eventIds.length; i += INSERT_CHUNK) {
      await db.insertInto('webhook_deliveries').values(eventIds.slice(i, i + INSERT_CHUNK).map((eventId) => ({
        id: newId('delivery'),
        workspace_id: workspaceId,
        endpoint_id: endpointId,
        event_id: eventId,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      }))).execute();
    }
    await this.wakeDispatcher(db);
  }

  /** The delivery of one event to one endpoint (a ping has exactly one). */
  async deliveryIdOf(db: Executor, endpointId: string, eventId: string): Promise<string | undefined> {
    const row = await db.selectFrom('webhook_deliveries').select('id')
      .where('endpoint_id', '=', endpointId).where('event_id', '=', eventId).executeTakeFirst();
    return row?.id;
  }

  /** NOTIFY is delivered when the transaction commits, so the dispatcher never wakes to rows it cannot see. */
  private async wakeDispatcher(db: Executor): Promise<void> {
    await sql`select pg_notify(${DELIVERIES_CHANNEL}, '')`.execute(db);
  }
}
