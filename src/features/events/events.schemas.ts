import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { Nullable, StringEnum } from '../../http/schema-types.ts';
import { EVENT_TYPE_NAMES } from './event-types.ts';

const EventName = StringEnum(EVENT_TYPE_NAMES, { description: 'The kind of event; `GET /v1/event-types` lists them all.' });

export const EventTypeSchema = Type.Object({
  name: EventName,
  description: Type.String({ description: 'What happened, and what `data` holds.' }),
}, { title: 'EventType' });

export const EventTypeList = Type.Object({
  data: Type.Array(EventTypeSchema),
}, {
  title: 'EventTypeList',
  description: 'Every kind of event the service emits, including those of features still to come. Not paginated: the list is short and fixed by the server version.',
});
export type EventTypeListView = Static<typeof EventTypeList>;

/** The envelope: what `GET /v1/events` lists and what every webhook delivery of the event sends, byte for byte. */
export const Event = Type.Object({
  id: Type.String({ description: 'evt_… — also the `webhook-id` of every delivery of this event.' }),
  event: EventName,
  project_id: Nullable(Type.String({ description: 'prj_… of the project the event concerns; null for workspace-wide events (`user.*`, `webhook.*`).' })),
  workspace_id: Type.String({ description: 'wsp_…' }),
  created_at: Type.String({ format: 'date-time', description: 'When the change happened (RFC 3339, ms). Events are ordered by it only approximately; see docs/events.md.' }),
  data: Type.Object({}, {
    additionalProperties: true,
    description: 'The resource, exactly as the API returned it at the time of the change (for `*.deleted`: as it was). Its shape follows the event type.',
  }),
}, { title: 'Event' });

const EventFilter = Type.String({
  minLength: 1, maxLength: 100,
  description: 'An event name (`project.updated`) or every event of a resource (`project.*`). Unknown names are a 400.',
});

export const EventListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  event: Type.Optional(EventFilter),
  project_id: Type.Optional(Type.String({ pattern: '^prj_[0-9a-hjkmnp-tv-z]{26}$', description: 'prj_…: only events of this project (including its `project.deleted`).' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; events created at or after it.' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339; events created before it (exclusive). Must be after `since`.' })),
}, { additionalProperties: false });
export type EventListFilters = Static<typeof EventListQuery>;

export const EventIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'evt_…' }) });

export const ConditionalReadHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'An `ETag` from a read: 304 with no body if it still matches (events never change).' })),
});
