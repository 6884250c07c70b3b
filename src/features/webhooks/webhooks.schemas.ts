import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../http/schema-types.ts';

const Timestamp = Type.String({ format: 'date-time' });

export const Webhook = Type.Object({
  id: Type.String({ description: 'whk_…' }),
  url: Type.String({ description: 'Where deliveries are POSTed. http(s) and publicly reachable.' }),
  description: Nullable(Type.String()),
  events: Type.Array(Type.String(), { description: 'Subscribed patterns: `*`, `photo.*` or exact event names.' }),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(StringEnum(['manual', 'gone', 'failing'], {
    description: '`manual`: disabled through the API; `gone`: the receiver answered 410; `failing`: no successful delivery for 5 days.',
  })),
  disabled_at: Nullable(Timestamp),
  previous_secret_expires_at: Nullable(Type.String({ format: 'date-time', description: 'During a secret rotation: until when the previous secret still signs.' })),
  last_success_at: Nullable(Timestamp),
  failing_since: Nullable(Type.String({ format: 'date-time', description: 'First failed attempt since the last success.' })),
  created_by: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'Webhook' });
export type WebhookView = Static<typeof Webhook>;
