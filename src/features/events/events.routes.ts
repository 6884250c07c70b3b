import { etagOf } from '../../http/etag.ts';
import { Page, type PageOf } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { ConditionalReadHeaders, Event, EventIdParams, EventListQuery, EventTypeList } from './events.schemas.ts';
import type { EventsService } from './events.service.ts';

const tags = ['Events'];

/** A page of stored envelopes as JSON, the envelopes spliced in as they were serialized at emit time. */
const serializeEventPage = (page: PageOf<string>): string =>
  `{"data":[${page.data.join(',')}],"has_more":${page.has_more},"next_cursor":${JSON.stringify(page.next_cursor)}}`;

/**
 * The event log. Envelopes are sent as stored, never re-serialized, so an event read here is
 * byte for byte the body its webhook deliveries carry; the response schemas still describe them
 * in full for the OpenAPI document.
 */
export function eventRoutes(app: App, events: EventsService): void {
  app.get('/v1/event-types', {
    schema: { tags, summary: 'List every kind of event (not paginated)', response: { 200: EventTypeList } },
  }, () => events.types());

  app.get('/v1/events', {
    schema: {
      tags, summary: 'List events (newest first, kept 30 days)',
      description: 'The event log, to reconcile without webhooks. Restricted users see only events of projects they can see (so no `user.*` or `webhook.*` events).',
      querystring: EventListQuery, response: { 200: Page(Event, 'EventPage') },
    },
  }, async (req, reply) => {
    const page = await events.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 });
    // The page object still passes the preSerialization hooks (the Link header); only its serialization is ours.
    return reply.serializer(serializeEventPage).type('application/json; charset=utf-8').send(page as never);
  });

  app.get('/v1/events/:id', {
    schema: { tags, summary: 'Get an event', params: EventIdParams, headers: ConditionalReadHeaders, response: { 200: Event } },
  }, async (req, reply) => {
    const event = await events.get(req.actor, req.params.id);
    // Events never change, so the id and creation time make a lasting ETag.
    reply.header('etag', etagOf({ id: event.id, updated_at: event.created_at })).type('application/json; charset=utf-8');
    return reply.send(event.payload as never);
  });
}
