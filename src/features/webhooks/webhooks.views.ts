import type { Selectable } from 'kysely';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/schema.ts';
import type { WebhookAttemptView, WebhookDeliveryView, WebhookView } from './webhooks.schemas.ts';

export type WebhookRow = Selectable<WebhookEndpointsTable>;
export type { WebhookView };

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The endpoint as the API shows it: never its secrets. */
export const toWebhookView = (w: WebhookRow): WebhookView => ({
  id: w.id,
  url: w.url,
  description: w.description,
  events: w.events,
  enabled: w.enabled,
  disabled_reason: w.disabled_reason,
  disabled_at: iso(w.disabled_at),
  previous_secret_expires_at: w.previous_secret && w.previous_secret_expires_at && w.previous_secret_expires_at > new Date()
    ? w.previous_secret_expires_at.toISOString() : null,
  last_success_at: iso(w.last_success_at),
  failing_since: iso(w.failing_since),
  created_by: w.created_by,
  created_at: w.created_at.toISOString(),
  updated_at: w.updated_at.toISOString(),
});

/** A delivery as the delivery log lists it: its row, the event's type, and its latest attempts. */
export type DeliveryRow = Pick<Selectable<WebhookDeliveriesTable>, 'id' | 'event_id' | 'status' | 'attempt_count' | 'next_attempt_at' |
  'last_status_code' | 'last_error' | 'created_at' | 'updated_at' | 'completed_at'> & { event: string };
export type AttemptRow = Pick<Selectable<WebhookAttemptsTable>, 'delivery_id' | 'attempted_at' | 'status_code' | 'duration_ms' | 'response_excerpt' | 'error'>;

export const toAttemptView = (a: AttemptRow): WebhookAttemptView => ({
  attempted_at: a.attempted_at.toISOString(),
  status_code: a.status_code,
  duration_ms: a.duration_ms,
  response_excerpt: a.response_excerpt,
  error: a.error,
});

export const toDeliveryView = (d: DeliveryRow, attempts: readonly AttemptRow[]): WebhookDeliveryView => ({
  id: d.id,
  event_id: d.event_id,
  event: d.event,
  status: d.status,
  attempt_count: d.attempt_count,
  // A finished delivery has no next attempt, whatever the column still holds.
  next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  created_at: d.created_at.toISOString(),
  updated_at: d.updated_at.toISOString(),
  completed_at: iso(d.completed_at),
  attempts: attempts.map(toAttemptView),
});
