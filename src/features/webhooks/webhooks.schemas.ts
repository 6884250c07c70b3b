import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';
import { EVENT_TYPE_NAMES } from '../events/event-types.ts';

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

export const WebhookWithSecret = Type.Composite([Webhook, Type.Object({
  secret: Type.String({
    description: 'The signing secret (`whsec_` + base64 of 32 random bytes). Shown only in this response (creation and rotation): store it now.',
  }),
})], { title: 'WebhookWithSecret' });

// PostgreSQL text cannot hold NUL characters, so free text refuses them up front (400, not 500).
const NO_NUL = '^[^\\u0000]*$';

const WebhookUrl = Type.String({
  minLength: 1, maxLength: 2000, pattern: NO_NUL,
  description: 'http(s) URL, up to 2,000 characters. Its host must resolve to public addresses only (unless the operator allowed a private range ' +
    'with `JOBSITE_WEBHOOK_ALLOW_PRIVATE`); checked here and again on every delivery.',
});
const EventPatterns = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1, maxItems: 50, uniqueItems: true,
  description: '1..50 distinct patterns: `*` (everything), `photo.*` (every event of a resource) or an exact name from `GET /v1/event-types`.',
});
const WebhookDescription = Nullable(Type.String({ maxLength: 1000, pattern: NO_NUL, description: 'Free text, up to 1,000 characters.' }));
const ENABLED = 'A disabled endpoint gets no deliveries. Enabling clears `disabled_reason`; disabling through the API sets it to `manual` and fails its pending deliveries.';

export const WebhookCreate = Type.Object({
  url: WebhookUrl,
  events: EventPatterns,
  description: Type.Optional(WebhookDescription),
  enabled: Type.Optional(Type.Boolean({ default: true, description: ENABLED })),
}, { additionalProperties: false, title: 'WebhookCreate' });
export type WebhookCreateInput = Static<typeof WebhookCreate>;

export const WebhookPatch = Type.Object({
  url: Type.Optional(WebhookUrl),
  events: Type.Optional(EventPatterns),
  description: Type.Optional(WebhookDescription),
  enabled: Type.Optional(Type.Boolean({ description: ENABLED })),
}, { additionalProperties: false, title: 'WebhookPatch', description: 'Merge semantics: fields left out keep their value.' });
export type WebhookPatchInput = Static<typeof WebhookPatch>;

/** Seven days: long enough for any deploy cycle, short enough that a leaked old secret dies. */
export const MAX_GRACE_SECONDS = 604_800;
export const DEFAULT_GRACE_SECONDS = 86_400;

export const RotateSecret = Type.Object({
  grace_seconds: Type.Optional(Type.Integer({
    minimum: 0, maximum: MAX_GRACE_SECONDS, default: DEFAULT_GRACE_SECONDS,
    description: 'How long the old secret keeps signing alongside the new one (0..604800 s, default 86400 = 24 h). 0 drops it at once.',
  })),
}, { additionalProperties: false, title: 'RotateSecret', description: 'Optional; an empty body rotates with a 24 h grace period.' });
export type RotateSecretInput = Static<typeof RotateSecret>;

export const WebhookListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
}, { additionalProperties: false });
export type WebhookListFilters = Static<typeof WebhookListQuery>;

/** Any text: an id of the wrong shape is simply not found (404), like another workspace's. */
export const WebhookIdParams = Type.Object({ id: Type.String({ description: 'whk_…' }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ description: 'whk_…' }),
  delivery_id: Type.String({ description: 'dlv_…' }),
});

export const PingResult = Type.Object({
  event_id: Type.String({ description: 'evt_… of the `webhook.ping` event.' }),
  delivery_id: Type.String({ description: 'dlv_… of its delivery to this endpoint; follow it in the delivery log.' }),
}, { title: 'WebhookPingResult' });

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const WebhookAttempt = Type.Object({
  attempted_at: Timestamp,
  status_code: Nullable(Type.Integer({ description: 'The receiver\'s HTTP status; null when no response came (timeout, refused connection, blocked address).' })),
  duration_ms: Type.Integer(),
  response_excerpt: Nullable(Type.String({ description: 'The first 4 KB of the response body.' })),
  error: Nullable(Type.String({ description: 'What went wrong when the status code alone does not say: a timeout, a refused connection, a blocked address, a redirect (not followed).' })),
}, { title: 'WebhookAttempt' });

export const WebhookDelivery = Type.Object({
  id: Type.String({ description: 'dlv_…; also sent as `X-Service-Delivery`.' }),
  event_id: Type.String({ description: 'evt_…; also sent as `webhook-id` (the same on every attempt and retry: dedupe on it).' }),
  event: Type.String({ description: 'The event type, e.g. `project.created`.' }),
  status: StringEnum(DELIVERY_STATUSES, {
    description: '`pending`: will be attempted at `next_attempt_at`; `succeeded`: a 2xx answered; `failed`: retries exhausted, or the endpoint was disabled.',
  }),
  attempt_count: Type.Integer({ description: 'Attempts made so far (a manual retry keeps counting).' }),
  next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'When a pending delivery is next attempted.' })),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Nullable(Type.String({ format: 'date-time', description: 'When it succeeded or finally failed.' })),
  attempts: Type.Array(WebhookAttempt, { description: 'The latest 25 attempts, oldest first.' }),
}, { title: 'WebhookDelivery' });
export type WebhookDeliveryView = Static<typeof WebhookDelivery>;
export type WebhookAttemptView = Static<typeof WebhookAttempt>;

export const DeliveryListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  status: Type.Optional(StringEnum(DELIVERY_STATUSES, { description: 'Only deliveries in this status.' })),
  event: Type.Optional(StringEnum(EVENT_TYPE_NAMES, { description: 'Only deliveries of this event type.' })),
}, { additionalProperties: false });
export type DeliveryListFilters = Static<typeof DeliveryListQuery>;

export const Replay = Type.Object({
  since: Type.String({ format: 'date-time', description: 'RFC 3339; events created at or after it. Within the 30-day retention of the event log.' }),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; events created before it. Defaults to now.' })),
}, { additionalProperties: false, title: 'WebhookReplay' });
export type ReplayInput = Static<typeof Replay>;

export const ReplayResult = Type.Object({
  queued: Type.Integer({ description: 'How many new deliveries were queued (one per matching event).' }),
}, { title: 'WebhookReplayResult' });
