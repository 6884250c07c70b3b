import { sql, type OperationNodeSource } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { newId } from '../../ids.ts';
import { patternsMatching, type EventType, type OperatorEventType } from './event-types.ts';

/** Channel that wakes the webhook dispatcher when deliveries are due. */
export const DELIVERIES_CHANNEL = 'jobsite_webhook_deliveries';

export interface EventEnvelope<T = unknown> {
  id: string;
  /** Operator events go only to the operator webhook (in the system workspace). */
  event: EventType | OperatorEventType;
  project_id: string | null;
  workspace_id: string;
  created_at: string;
  data: T;
}

export interface NewEvent {
  workspaceId: string;
  event: EventType | OperatorEventType;
  projectId: string | null;
  /** The full resource, exactly as the API returns it. */
  data: unknown;
  /** Deliver only to this endpoint (ping), whatever its patterns; otherwise to every enabled endpoint subscribed to it. */
  onlyEndpointId?: string;
  /**
   * The change itself, as a write whose result the caller already knows (e.g. an insert with
   * every value set): it runs in the same statement as the event, so the pair is atomic without
   * a transaction, in one round trip.
   */
  alongWith?: OperationNodeSource;
}

/**
 * The one way any feature records a change: `await events.emit(tx, {...})` inside the change's
 * transaction (or with the change itself as `alongWith`). The event row and its deliveries are
 * written by one statement, so they commit or roll back with the change: no event is lost or
 * invented. pg_notify wakes the dispatcher once the transaction commits.
 */
export class EventLog {
  async emit(db: Executor, input: NewEvent): Promise<EventEnvelope> {
    const createdAt = new Date();
    const envelope: EventEnvelope = {
      id: newId('event'),
      event: input.event,
      project_id: input.projectId,
      workspace_id: input.workspaceId,
      created_at: createdAt.toISOString(),
      data: input.data,
    };
    const targets = input.onlyEndpointId
      // An event addressed to one endpoint (a ping) reaches it whatever it subscribes to.
      ? sql`id = ${input.onlyEndpointId}`
      : sql`events && ${patternsMatching(input.event)}::text[]`;
    // Delivery ids: the event's time prefix and a digest of (event, endpoint), so they sort by
    // time like every id and are made in the same statement (unique: one delivery per pair).
    const { rows } = await sql<{ queued: number }>`
      with ${input.alongWith ? sql`change as (${input.alongWith}),` : sql``}
      recorded as (
        insert into events (id, workspace_id, project_id, event, payload, created_at)
        values (${envelope.id}, ${input.workspaceId}, ${input.projectId}, ${input.event}, ${JSON.stringify(envelope)}, ${createdAt})
      ),
      queued as (
        insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, next_attempt_at)
        select 'dlv_' || ${envelope.id.slice(4, 14)} || substr(md5(${envelope.id} || e.id), 1, 16), e.workspace_id, e.id, ${envelope.id}, ${createdAt}
          from webhook_endpoints e
         where e.workspace_id = ${input.workspaceId} and e.enabled and ${targets}
        returning 1
      )
      select count(*)::int as queued from queued`.execute(db);
    if (rows[0]!.queued > 0) await sql`select pg_notify(${DELIVERIES_CHANNEL}, '')`.execute(db);
    return envelope;
  }
}
