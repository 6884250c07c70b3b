import type { Selectable } from 'kysely';
import type { WebhookEndpointsTable } from '../../db/schema.ts';
import type { WebhookView } from './webhooks.schemas.ts';

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
