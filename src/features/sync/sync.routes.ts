import type { App } from '../../http/types.ts';
import { SyncPage, SyncQuery } from './sync.schemas.ts';
import type { SyncService } from './sync.service.ts';

const tags = ['Sync'];

export function syncRoutes(app: App, sync: SyncService): void {
  app.get('/v1/sync', {
    schema: {
      tags, summary: 'Changes since your last sync (offline delta sync)',
      description: 'Every change to every resource you can see, in the order the changes committed: `upsert` with the resource as its own GET returns it, '
        + '`delete` for what was deleted or left your sight (a project you were taken off arrives as deletes of its content). '
        + 'Without `cursor`: the current state as upserts, then changes. Follow `next_cursor` while `has_more`; keep the last `next_cursor` for next time. '
        + 'Deletes are kept 30 days: an older cursor answers 410 `sync_cursor_expired` (sync again without a cursor). See docs/sync.md.',
      querystring: SyncQuery, response: { 200: SyncPage },
    },
    // Objects are the resources' own views, already shaped by their features; the schema (one of
    // nine resources) documents them, and plain JSON writes them without compiling a serializer
    // that would have to pick a branch per object.
    serializerCompiler: () => (data) => JSON.stringify(data),
  }, (req) => sync.changes(req.actor, req.query));
}
