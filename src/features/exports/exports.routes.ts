import { Type } from '@sinclair/typebox';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { bytes, FileHeaders, fileRequestOf, sendFile } from '../../storage/files.routes.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import { Export, ExportCreate, ExportIdParams, ExportListQuery } from './exports.schemas.ts';
import type { ExportsService } from './exports.service.ts';

const tags = ['Exports'];

export function exportRoutes(app: App, exports: ExportsService): void {
  app.post('/v1/projects/:id/exports', {
    schema: {
      tags, summary: 'Request a ZIP of the project\'s original photos',
      description: 'Answers 202 with `status: "queued"`; a job streams the originals (named by local capture time and caption, e.g. ' +
        '`2026-03-02 0800 Deck poured, north side.jpg`) and the manifests `photos.csv` and `photos.json` into one ZIP, and `export.finished` ' +
        '(or `export.failed`) fires when it is done. Restricted users may not export (403). Every `photo_ids` entry must be a photo of the project ' +
        '(422 `photo_not_in_project` names the first that is not); `tag_ids` must be tags of the workspace (422 `tag_not_found`). See docs/exports.md.',
      params: ProjectIdParams, body: ExportCreate, response: { 202: Export },
    },
  }, async (req, reply) => {
    const created = await exports.create(req.actor, req.params.id, req.body);
    reply.code(202).header('location', `/v1/exports/${created.id}`);
    return created;
  });

  app.get('/v1/projects/:id/exports', {
    schema: { tags, summary: 'List a project\'s exports', description: 'Newest first.', params: ProjectIdParams, querystring: ExportListQuery, response: { 200: Page(Export, 'ExportPage') } },
  }, (req) => exports.list(req.actor, req.params.id, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/exports/:id', {
    schema: { tags, summary: 'Get an export', description: '`url` is set once `status` is `finished`.', params: ExportIdParams, response: { 200: Export } },
  }, (req) => exports.get(req.actor, req.params.id));

  app.delete('/v1/exports/:id', {
    schema: { tags, summary: 'Delete an export and its ZIP', description: 'Your own exports; admins and managers also those of others (docs/roles.md).', params: ExportIdParams, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await exports.remove(req.actor, req.params.id);
    return reply.code(204).send(null);
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/v1/exports/:id/download',
    schema: {
      tags, summary: 'Download a finished export\'s ZIP',
      description: '`Content-Type: application/zip`, `Content-Disposition: attachment` with the export\'s `file_name`, `ETag`, single byte ranges ' +
        '(a broken download resumes) and HEAD. 409 `export_not_ready` until the export is finished.',
      params: ExportIdParams,
      headers: FileHeaders,
      response: {
        200: { description: 'The ZIP.', content: { 'application/zip': { schema: bytes } } },
        206: { description: 'The byte range asked for.', content: { 'application/zip': { schema: bytes } } },
        304: { description: 'Not modified.', type: 'null' },
      },
    },
    handler: async (req, reply) => sendFile(reply, await exports.download(req.actor, req.params.id, fileRequestOf(req))),
  });
}
