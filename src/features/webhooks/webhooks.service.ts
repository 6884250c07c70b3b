import type { Db, Executor } from '../../db/database.ts';
import { requireRole, type Actor } from '../../http/actor.ts';
import { ApiError, badRequest, conflict, notFound, validationFailed } from '../../http/errors.ts';
import { MAX_FIELD_ERRORS } from '../../http/validation.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { checkOutboundUrl, NO_PRIVATE_RANGES, systemResolver, type AllowList, type HostResolver } from '../../http/ssrf-guard.ts';
import { isId } from '../../ids.ts';
import { isValidPattern } from '../events/event-types.ts';
import { EventLog } from '../events/events.log.ts';
import { EVENT_RETENTION_DAYS } from '../events/events.service.ts';
import {
  DEFAULT_GRACE_SECONDS,
  type DeliveryListFilters,
  type ReplayInput,
  type RotateSecretInput,
  type WebhookCreateInput,
  type WebhookDeliveryView,
  type WebhookPatchInput,
} from './webhooks.schemas.ts';
import { WebhooksRepository } from './webhooks.repository.ts';
import { generateWebhookSecret } from './webhooks.signing.ts';
import { toDeliveryView, toWebhookView, type WebhookRow, type WebhookView } from './webhooks.views.ts';

/** At most this many events per replay request; a wider range must be split. */
export const MAX_REPLAY_EVENTS = 10_000;
/** last_error of the deliveries that were pending when their endpoint was disabled by hand. */
export const ENDPOINT_DISABLED_ERROR = 'endpoint disabled';

export interface WebhooksServiceDeps {
  events?: EventLog;
  /** Private ranges the operator allowed webhook URLs to target (JOBSITE_WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate?: AllowList;
  resolve?: HostResolver;
  /** The most endpoints one workspace may have (JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE; default 20). */
  maxEndpoints?: number;
}

export const DEFAULT_MAX_ENDPOINTS = 20;

export type WebhookWithSecretView = WebhookView & { secret: string };

/**
 * Webhook endpoints and their delivery log; admins only (anyone else gets 403, another
 * workspace's endpoint is 404):
 * - a URL must be http(s) and reach only public addresses (or ranges the operator allowed);
 *   checked here and again by the dispatcher when it connects;
 * - the secret is returned by create and rotate-secret only; rotation keeps the old one
 *   signing alongside the new one for a grace period (24 h by default);
 * - disabling by hand fails the endpoint's pending deliveries; enabling clears why it was disabled;
 * - ping, retry and replay queue deliveries inside their transaction and wake the dispatcher on
 *   commit; a disabled endpoint refuses all three (409 webhook_disabled).
 * See docs/webhooks.md.
 */
export class WebhooksService {
  private readonly webhooks = new WebhooksRepository();
  private readonly events: EventLog;
  private readonly allowPrivate: AllowList;
  private readonly resolve: HostResolver;
  private readonly maxEndpoints: number;

  constructor(private readonly db: Db, deps: WebhooksServiceDeps = {}) {
    this.maxEndpoints = deps.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS;
    this.events = deps.events ?? new EventLog();
    this.allowPrivate = deps.allowPrivate ?? NO_PRIVATE_RANGES;
    this.resolve = deps.resolve ?? systemResolver;
  }

  async list(actor: Actor, filters: { limit: number; cursor?: string | undefined }): Promise<PageOf<WebhookView>> {
    requireAdmin(actor);
    const [after] = decodeCursor(filters.cursor, 'id', 1) ?? [null];
    const rows = await this.webhooks.list(this.db, actor.workspaceId, filters.limit, after as string | null);
    return toPage(rows, filters.limit, 'id', (w) => [w.id], toWebhookView);
  }

  async get(actor: Actor, id: string): Promise<WebhookView> {
    requireAdmin(actor);
    return toWebhookView(await this.endpoint(actor, id));
  }

  async create(actor: Actor, input: WebhookCreateInput): Promise<WebhookWithSecretView> {
    requireAdmin(actor);
    requireValidPatterns(input.events);
    await this.requireAllowedUrl(input.url);
    const secret = generateWebhookSecret();
    const row = await this.db.transaction().execute(async (tx) => {
      const count = await this.webhooks.countForCreate(tx, actor.workspaceId);
      if (count >= this.maxEndpoints) {
        throw new ApiError(422, 'webhook_endpoint_limit_reached', 'Unprocessable content',
          `This workspace has ${count} webhook endpoints, the most it may have (${this.maxEndpoints}). ` +
          'Delete one it no longer uses, or subscribe an existing endpoint to more events (one endpoint may take every event: "*").',
          { limit: this.maxEndpoints });
      }
      return this.webhooks.insert(tx, {
        workspaceId: actor.workspaceId, url: input.url, events: input.events, description: input.description ?? null,
        enabled: input.enabled ?? true, secret, createdBy: actor.userId,
      });
    });
    return { ...toWebhookView(row), secret };
  }

  async update(actor: Actor, id: string, patch: WebhookPatchInput, ifMatch: IfMatch): Promise<WebhookView> {
    requireAdmin(actor);
    if (!isId('webhook', id)) notFound('webhook', id);
    if (patch.events !== undefined) requireValidPatterns(patch.events);
    // Resolving the host may take a while: do it before locking the row.
    if (patch.url !== undefined) await this.requireAllowedUrl(patch.url);
    const row = await this.db.transaction().execute(async (tx) => {
      const current = await this.webhooks.getForUpdate(tx, actor.workspaceId, id) ?? notFound('webhook', id);
      checkIfMatch(ifMatch, toWebhookView(current));
      const enabling = patch.enabled === true && !current.enabled;
      const disabling = patch.enabled === false && current.enabled;
      const updated = await this.webhooks.update(tx, current.id, {
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.events !== undefined ? { events: patch.events } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(enabling ? { enabled: true, disabled_reason: null, disabled_at: null, failing_since: null } : {}),
        ...(disabling ? { enabled: false, disabled_reason: 'manual', disabled_at: new Date() } : {}),
      });
      if (disabling) await this.webhooks.failPendingDeliveries(tx, current.id, ENDPOINT_DISABLED_ERROR);
      return updated;
    });
    return toWebhookView(row);
  }

  /** Deleting an endpoint deletes its delivery log with it. */
  async delete(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    requireAdmin(actor);
    if (!isId('webhook', id)) notFound('webhook', id);
    await this.db.transaction().execute(async (tx) => {
      const current = await this.webhooks.getForUpdate(tx, actor.workspaceId, id) ?? notFound('webhook', id);
      checkIfMatch(ifMatch, toWebhookView(current));
      await this.webhooks.delete(tx, current.id);
    });
  }

  /**
   * A new secret; the current one becomes the previous one and keeps signing until the grace
   * period ends (0: dropped at once). A previous secret from an earlier rotation is dropped.
   */
  async rotateSecret(actor: Actor, id: string, input: RotateSecretInput): Promise<WebhookWithSecretView> {
    requireAdmin(actor);
    if (!isId('webhook', id)) notFound('webhook', id);
    const graceSeconds = input.grace_seconds ?? DEFAULT_GRACE_SECONDS;
    const secret = generateWebhookSecret();
    const row = await this.db.transaction().execute(async (tx) => {
      const current = await this.webhooks.getForUpdate(tx, actor.workspaceId, id) ?? notFound('webhook', id);
      return this.webhooks.update(tx, current.id, {
        secret,
        previous_secret: graceSeconds > 0 ? current.secret : null,
        previous_secret_expires_at: graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null,
      });
    });
    return { ...toWebhookView(row), secret };
  }

  /** Sends a `webhook.ping` event to this endpoint only, whatever it subscribes to. */
  async ping(actor: Actor, id: string): Promise<{ event_id: string; delivery_id: string }> {
    requireAdmin(actor);
    if (!isId('webhook', id)) notFound('webhook', id);
    return this.db.transaction().execute(async (tx) => {
      // FOR UPDATE: a concurrent disable cannot slip between the check and the delivery.
      const endpoint = await this.webhooks.getForUpdate(tx, actor.workspaceId, id) ?? notFound('webhook', id);
      requireEnabled(endpoint, 'ping it');
      const event = await this.events.emit(tx, {
        workspaceId: actor.workspaceId, event: 'webhook.ping', projectId: null, onlyEndpointId: endpoint.id,
        data: { id: endpoint.id, webhook_id: endpoint.id, message: 'Ping from Jobsite: if you can read this, your endpoint receives our deliveries.' },
      });
      const deliveryId = await this.webhooks.deliveryIdOf(tx, endpoint.id, event.id);
      if (!deliveryId) throw new Error(`ping ${event.id} created no delivery for ${endpoint.id}`);
      return { event_id: event.id, delivery_id: deliveryId };
    });
  }

  async listDeliveries(actor: Actor, id: string, filters: DeliveryListFilters & { limit: number }): Promise<PageOf<WebhookDeliveryView>> {
    requireAdmin(actor);
    const endpoint = await this.endpoint(actor, id);
    const [after] = decodeCursor(filters.cursor, 'id', 1, ([v]) => typeof v === 'string') ?? [null];
    const rows = await this.webhooks.listDeliveries(this.db, endpoint.id, filters, after as string | null);
    const page = rows.slice(0, filters.limit);
    const attempts = await this.webhooks.attemptsOf(this.db, page.map((d) => d.id));
    return toPage(rows, filters.limit, 'id', (d) => [d.id], (d) => toDeliveryView(d, attempts.get(d.id) ?? []));
  }

  async getDelivery(actor: Actor, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    requireAdmin(actor);
    const endpoint = await this.endpoint(actor, id);
    return this.deliveryView(this.db, endpoint.id, deliveryId);
  }

  /**
   * Queues a delivery again, due now, whatever its status (a succeeded one is sent again: the
   * receiver dedupes on `webhook-id`). The attempt count keeps counting.
   */
  async retryDelivery(actor: Actor, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    requireAdmin(actor);
    if (!isId('webhook', id)) notFound('webhook', id);
    return this.db.transaction().execute(async (tx) => {
      const endpoint = await this.webhooks.getForUpdate(tx, actor.workspaceId, id) ?? notFound('webhook', id);
      const delivery = (isId('delivery', deliveryId) && await this.webhooks.getDelivery(tx, endpoint.id, deliveryId)) || notFound('delivery', deliveryId);
      requireEnabled(endpoint, 'retry its deliveries');
      await this.webhooks.requeueDelivery(tx, endpoint.id, delivery.id);
      return this.deliveryView(tx, endpoint.id, delivery.id);
    });
  }

  /**
   * One new delivery to this endpoint for every event in [since, until) that its patterns
   * match (pings excepted), due now. `since` must lie within the event log's retention.
   */
  async replay(actor: Actor, id: string, input: ReplayInput): Promise<{ queued: number }> {
    requireAdmin(actor);
    if (!isId('webhook', id)) notFound('webhook', id);
    const now = new Date();
    const since = parseTime(input.since, 'since');
    const until = input.until === undefined ? now : parseTime(input.until, 'until');
    const oldest = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000);
    if (since < oldest) {
      validationFailed([{ path: 'body.since', message: `must be within the last ${EVENT_RETENTION_DAYS} days (the event log keeps events that long)` }],
        `Events are kept for ${EVENT_RETENTION_DAYS} days: since must be ${oldest.toISOString()} or later.`);
    }
    if (since >= until) {
      validationFailed([{ path: 'body.since', message: 'must be before until' }], 'since must be before until (which defaults to now).');
    }
    return this.db.transaction().execute(async (tx) => {
      const endpoint = await this.webhooks.getForUpdate(tx, actor.workspaceId, id) ?? notFound('webhook', id);
      requireEnabled(endpoint, 'replay events to it');
      const eventIds = await this.webhooks.eventIdsForReplay(tx, actor.workspaceId, endpoint.events, since, until, MAX_REPLAY_EVENTS + 1);
      if (eventIds.length > MAX_REPLAY_EVENTS) {
        badRequest('replay_too_large', `More than ${MAX_REPLAY_EVENTS.toLocaleString('en-US')} events match this range; replay a narrower one (split it by time).`);
      }
      await this.webhooks.queueDeliveries(tx, actor.workspaceId, endpoint.id, eventIds);
      return { queued: eventIds.length };
    });
  }

  /** The caller's workspace's endpoint, or 404 (an id of the wrong shape never reaches the database). */
  private async endpoint(actor: Actor, id: string): Promise<WebhookRow> {
    return (isId('webhook', id) && await this.webhooks.get(this.db, actor.workspaceId, id)) || notFound('webhook', id);
  }

  private async deliveryView(db: Executor, endpointId: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const delivery = (isId('delivery', deliveryId) && await this.webhooks.getDelivery(db, endpointId, deliveryId)) || notFound('delivery', deliveryId);
    const attempts = await this.webhooks.attemptsOf(db, [delivery.id]);
    return toDeliveryView(delivery, attempts.get(delivery.id) ?? []);
  }

  private async requireAllowedUrl(url: string): Promise<void> {
    const check = await checkOutboundUrl(url, this.allowPrivate, this.resolve);
    if (!check.ok) {
      throw new ApiError(400, 'url_not_allowed', 'Bad request', `The webhook URL is not allowed: ${check.reason}`,
        { errors: [{ path: 'body.url', message: check.reason }] });
    }
  }
}

const requireAdmin = (actor: Actor) => requireRole(actor, ['admin'], 'manage webhooks');

function requireValidPatterns(patterns: readonly string[]): void {
  const bad = patterns.flatMap((pattern, i) => isValidPattern(pattern) ? [] : [{ pattern, i }]);
  if (bad.length) {
    validationFailed(
      bad.slice(0, MAX_FIELD_ERRORS).map(({ pattern, i }) => ({
        path: `body.events.${i}`,
        message: `"${pattern}" is not an event type, a resource wildcard such as photo.* or *`,
      })),
      `Unknown event ${bad.length === 1 ? 'pattern' : 'patterns'} ${bad.map(({ pattern }) => JSON.stringify(pattern)).join(', ')}; GET /v1/event-types lists the event types.`,
    );
  }
}

/** A timestamp the schema accepted as RFC 3339 but Date cannot hold (a leap second) is refused, not sent to SQL. */
function parseTime(text: string, field: string): Date {
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) validationFailed([{ path: `body.${field}`, message: 'is not a time this service can represent' }]);
  return time;
}

function requireEnabled(endpoint: WebhookRow, action: string): void {
  if (!endpoint.enabled) {
    const why = endpoint.disabled_reason === 'gone' ? ' (it answered 410 Gone)'
      : endpoint.disabled_reason === 'failing' ? ' (no delivery succeeded for 5 days)'
        : endpoint.disabled_reason === 'manual' ? ' (by hand)' : '';
    conflict('webhook_disabled', `The endpoint is disabled${why}, so you cannot ${action}; enable it first with PATCH {"enabled": true}.`);
  }
}
