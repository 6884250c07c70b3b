import { ifMatchOf } from '../../http/etag.ts';
import type { App } from '../../http/types.ts';
import { Workspace, WorkspacePatch } from './workspaces.schemas.ts';
import type { WorkspacesService } from './workspaces.service.ts';

export function workspaceRoutes(app: App, workspaces: WorkspacesService): void {
  app.get('/v1/workspace', {
    schema: { tags: ['Workspace'], summary: 'The workspace of the calling API key', response: { 200: Workspace } },
  }, (req) => workspaces.current(req.actor));

  app.patch('/v1/workspace', {
    schema: { tags: ['Workspace'], summary: 'Rename the workspace or set its time zone (admins; merge semantics)', body: WorkspacePatch, response: { 200: Workspace } },
  }, (req) => workspaces.update(req.actor, req.body, ifMatchOf(req)));
}
