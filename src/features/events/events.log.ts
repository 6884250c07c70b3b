import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { newId } from '../../ids.ts';
import { patternsMatching, type EventType } from './event-types.ts';

/** Channel that wakes the webhook dispatcher when deliveries are due. */
export const DELIVERIES_CHANNEL = 'jobsite_webhook_deliveries';

export interface EventEnvelope<T = unknown> {
  id: string;
  event: EventType;
  project_id: string | null;
  workspace_id: string;
  created_at: string;
  data: T;
}

export interface NewEvent {
  workspaceId: string;
  event: EventType;
  projectId: string | null;
  /** The full resource, exactly as the API returns it. */
  data: unknown;
  /** Deliver only to this endpoint (ping), whatever its patterns; otherwise to every enabled endpoint subscribed to it. */
  onlyEndpointId?: string;
}

/**
 * The one way any feature records a change: `await events.emit(tx, {...})` inside the change's
 * transaction. The event row and its deliveries commit or roll back with the change, so no event
 * is lost or invented; pg_notify wakes the dispatcher only once the transaction commits.
 */
export class EventLog {
  async emit(tx: Executor, input: NewEvent): Promise<EventEnvelope> {
    const createdAt = new Date();
    const envelope: EventEnvelope = {
      id: newId('event'),
      event: input.event,
      project_id: input.projectId,
      workspace_id: input.workspaceId,
      created_at: createdAt.toISOString(),
      data: input.data,
    };
    await tx.insertInto('events').values({
      id: envelope.id,
      workspace_id: input.workspaceId,
      project_id: input.projectId,
      event: input.event,
      payload: JSON.stringify(envelope),
      created_at: createdAt,
    }).execute();

    let endpoints = tx.selectFrom('webhook_endpoints').select('id')
      .where('workspace_id', '=', input.workspaceId)
      .where('enabled', '=', true);
    // An event addressed to one endpoint (a ping) reaches it whatever it subscribes to.
    endpoints = input.onlyEndpointId
      ? endpoints.where('id', '=', input.onlyEndpointId)
      : endpoints.where(sql<boolean>`events && ${patternsMatching(input.event)}::text[]`);
    const subscribed = await endpoints.execute();
    if (subscribed.length) {
      await tx.insertInto('webhook_deliveries').values(subscribed.map((e) => ({
        id: newId('delivery'),
        workspace_id: input.workspaceId,
        endpoint_id: e.id,
        event_id: envelope.id,
        next_attempt_at: createdAt,
      }))).execute();
      await sql`select pg_notify(${DELIVERIES_CHANNEL}, '')`.execute(tx);
    }
    return envelope;
  }
}
