import type { App } from '../../http/types.ts';
import { Workspace } from './workspaces.schemas.ts';
import type { WorkspacesService } from './workspaces.service.ts';

export function workspaceRoutes(app: App, workspaces: WorkspacesService): void {
  app.get('/v1/workspace', {
    schema: { tags: ['Workspace'], summary: 'The workspace of the calling API key', response: { 200: Workspace } },
  }, (req) => workspaces.current(req.actor));
}
