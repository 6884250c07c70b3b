/**
 * The Webhooks settings' calls to the /v1 API (src/features/webhooks/webhooks.schemas.ts, admins
 * only): endpoints, their secret (create and rotate answer it once), ping, the delivery log with
 * retry and replay, the event catalogue (GET /v1/event-types) and one event (the request body a
 * delivery sent: the stored envelope, byte for byte).
 */
import { request, type Page } from '../api.ts';

export type DisabledReason = 'manual' | 'gone' | 'failing';

export interface Webhook {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  disabled_at: string | null;
  previous_secret_expires_at: string | null;
  last_success_at: string | null;
  failing_since: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export type WebhookWithSecret = Webhook & { secret: string };

export interface WebhookInput {
  url: string;
  events: string[];
  description: string | null;
  enabled?: boolean;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export interface Attempt {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

export interface Delivery {
  id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  attempts: Attempt[];
}

export interface EventType { name: string; description: string }

const path = (id: string, rest = '') => `/v1/webhooks/${encodeURIComponent(id)}${rest}`;

export const webhooksApi = {
  list: (cursor: string | null) => request<Page<Webhook>>('GET', '/v1/webhooks', { query: { cursor, limit: 50 } }),
  get: (id: string) => request<Webhook>('GET', path(id)),
  create: (body: WebhookInput) => request<WebhookWithSecret>('POST', '/v1/webhooks', { body }),
  // No If-Match: every delivery moves the endpoint's updated_at (last success, failing since), so an ETag would go stale by itself.
  update: (id: string, body: Partial<WebhookInput>) => request<Webhook>('PATCH', path(id), { body }),
  delete: (id: string) => request<void>('DELETE', path(id)),
  rotateSecret: (id: string, graceSeconds: number) => request<WebhookWithSecret>('POST', path(id, '/rotate-secret'), { body: { grace_seconds: graceSeconds } }),
  ping: (id: string) => request<{ event_id: string; delivery_id: string }>('POST', path(id, '/ping')),
  deliveries: (id: string, query: { status?: DeliveryStatus | ''; event?: string; cursor: string | null }) =>
    request<Page<Delivery>>('GET', path(id, '/deliveries'), { query: { ...query, limit: 20 } }),
  delivery: (id: string, deliveryId: string) => request<Delivery>('GET', path(id, `/deliveries/${encodeURIComponent(deliveryId)}`)),
  retry: (id: string, deliveryId: string) => request<Delivery>('POST', path(id, `/deliveries/${encodeURIComponent(deliveryId)}/retry`)),
  replay: (id: string, since: string, until: string) => request<{ queued: number }>('POST', path(id, '/replay'), { body: { since, until } }),
  eventTypes: () => request<{ data: EventType[] }>('GET', '/v1/event-types'),
  /** The event as stored: the exact body its deliveries POSTed. */
  event: (eventId: string) => request<unknown>('GET', `/v1/events/${encodeURIComponent(eventId)}`),
};

/** Why an endpoint gets no deliveries, in words (the `disabled_reason` of the schema). */
export function disabledInWords(w: Webhook): string {
  switch (w.disabled_reason) {
    case 'gone': return 'Disabled automatically: the receiver answered 410 Gone, which says it no longer wants deliveries.';
    case 'failing': return 'Disabled automatically: no delivery succeeded for 5 days.';
    case 'manual': return 'Disabled by an admin.';
    default: return 'Disabled.';
  }
}

/** "All events", or the patterns as written ("photo.*" reads "every photo event"). */
export function eventsInWords(events: string[]): string {
  if (events.includes('*')) return 'All events';
  return events.map((e) => (e.endsWith('.*') ? `every ${e.slice(0, -2).replace('_', ' ')} event` : e)).join(', ');
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
export const formatTime = (iso: string) => timeFormat.format(new Date(iso));
