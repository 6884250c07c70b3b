import { Type } from '@sinclair/typebox';
import { ifMatchOf } from '../../http/etag.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import {
  DeliveryListQuery,
  DeliveryParams,
  PingResult,
  Replay,
  ReplayResult,
  RotateSecret,
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookIdParams,
  WebhookListQuery,
  WebhookPatch,
  WebhookWithSecret,
} from './webhooks.schemas.ts';
import type { WebhooksService } from './webhooks.service.ts';

const tags = ['Webhooks'];
const adminOnly = 'Admins only. See docs/webhooks.md and the `webhooks` section of this document for what receivers get.';

export function webhookRoutes(app: App, webhooks: WebhooksService): void {
  app.get('/v1/webhooks', { schema: { tags, summary: 'List webhook endpoints (newest first)', description: adminOnly, querystring: WebhookListQuery, response: { 200: Page(Webhook, 'WebhookPage') } } },
    (req) => webhooks.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.post('/v1/webhooks', {
    config: { idempotencySecretFields: ['secret'] },
    schema: {
      tags, summary: 'Register a webhook endpoint; its signing secret is returned once',
      description: `${adminOnly} Unknown event names and URLs that reach non-public addresses are refused (400 \`validation_failed\`, \`url_not_allowed\`). ` +
        'A workspace has at most 20 endpoints (the operator may change it: `JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE`); one more is refused with 422 `webhook_endpoint_limit_reached`.',
      body: WebhookCreate,
      // 422 `webhook_endpoint_limit_reached`: documented with the other 422 codes (http/openapi-errors.ts).
      response: { 201: WebhookWithSecret },
    },
  }, async (req, reply) => {
    const webhook = await webhooks.create(req.actor, req.body);
    reply.code(201).header('location', `/v1/webhooks/${webhook.id}`);
    return webhook;
  });

  app.get('/v1/webhooks/:id', { schema: { tags, summary: 'Get a webhook endpoint (never its secret)', description: adminOnly, params: WebhookIdParams, response: { 200: Webhook } } },
    (req) => webhooks.get(req.actor, req.params.id));

  app.patch('/v1/webhooks/:id', {
    schema: {
      tags, summary: 'Update a webhook endpoint (merge semantics)',
      description: `${adminOnly} A new URL is checked again. \`enabled: false\` fails the pending deliveries; \`enabled: true\` clears \`disabled_reason\`.`,
      params: WebhookIdParams, body: WebhookPatch, response: { 200: Webhook },
    },
  }, (req) => webhooks.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/webhooks/:id', { schema: { tags, summary: 'Delete a webhook endpoint and its delivery log', description: adminOnly, params: WebhookIdParams, response: { 204: Type.Null() } } },
    async (req, reply) => {
      await webhooks.delete(req.actor, req.params.id, ifMatchOf(req));
      return reply.code(204).send(null);
    });

  app.post('/v1/webhooks/:id/rotate-secret', {
    config: { idempotencySecretFields: ['secret'] },
    // The body is optional: no body is a rotation with the default grace period.
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, summary: 'Rotate the signing secret; the new one is returned once',
      description: `${adminOnly} The old secret keeps signing alongside the new one for \`grace_seconds\` (default 24 h): ` +
        'deliveries carry both `webhook-signature` values and `X-Service-Signature-Previous`.',
      params: WebhookIdParams, body: RotateSecret, response: { 200: WebhookWithSecret },
    },
  }, (req) => webhooks.rotateSecret(req.actor, req.params.id, req.body));

  app.post('/v1/webhooks/:id/ping', {
    schema: {
      tags, summary: 'Send a webhook.ping event to this endpoint only',
      description: `${adminOnly} Reaches the endpoint whatever it subscribes to; a disabled endpoint answers 409 \`webhook_disabled\`. Follow the delivery in the delivery log.`,
      params: WebhookIdParams, response: { 202: PingResult },
    },
  }, async (req, reply) => {
    reply.code(202);
    return webhooks.ping(req.actor, req.params.id);
  });

  app.get('/v1/webhooks/:id/deliveries', {
    schema: {
      tags, summary: 'The delivery log: deliveries with their attempts (newest first)',
      description: `${adminOnly} Filters: \`status\`, \`event\`. Deliveries live as long as their event (30 days).`,
      params: WebhookIdParams, querystring: DeliveryListQuery, response: { 200: Page(WebhookDelivery, 'WebhookDeliveryPage') },
    },
  }, (req) => webhooks.listDeliveries(req.actor, req.params.id, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/webhooks/:id/deliveries/:delivery_id', { schema: { tags, summary: 'Get a delivery with its attempts', description: adminOnly, params: DeliveryParams, response: { 200: WebhookDelivery } } },
    (req) => webhooks.getDelivery(req.actor, req.params.id, req.params.delivery_id));

  app.post('/v1/webhooks/:id/deliveries/:delivery_id/retry', {
    schema: {
      tags, summary: 'Send a delivery again now',
      description: `${adminOnly} Any delivery, even a succeeded one, becomes pending and due now; its attempt count keeps counting. ` +
        'The receiver gets the same event (same `webhook-id`) again. A disabled endpoint answers 409 `webhook_disabled`.',
      params: DeliveryParams, response: { 202: WebhookDelivery },
    },
  }, async (req, reply) => {
    reply.code(202);
    return webhooks.retryDelivery(req.actor, req.params.id, req.params.delivery_id);
  });

  app.post('/v1/webhooks/:id/replay', {
    schema: {
      tags, summary: 'Send the events of a time range to this endpoint again',
      description: `${adminOnly} Queues one new delivery for every event created in [since, until) that the endpoint's patterns match (pings excepted). ` +
        '`since` must be within the 30-day retention; at most 10,000 events per request (400 `replay_too_large`: narrow the range).',
      params: WebhookIdParams, body: Replay, response: { 202: ReplayResult },
    },
  }, async (req, reply) => {
    reply.code(202);
    return webhooks.replay(req.actor, req.params.id, req.body);
  });
}
