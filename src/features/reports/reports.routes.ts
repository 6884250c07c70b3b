import { Type } from '@sinclair/typebox';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { bytes, FileHeaders, fileRequestOf, sendFile } from '../../storage/files.routes.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import { Report, ReportCreate, ReportIdParams, ReportListQuery } from './reports.schemas.ts';
import type { ReportsService } from './reports.service.ts';

const tags = ['Reports'];

export function reportRoutes(app: App, reports: ReportsService): void {
  app.post('/v1/projects/:id/reports', {
    schema: {
      tags, summary: 'Request a PDF photo report',
      description: 'Answers 202 with `status: "queued"`; a job renders the PDF (cover, photos by day, optional tasks and comments) and ' +
        '`report.finished` (or `report.failed`) fires when it is done. Every `photo_ids` entry must be a photo of the project ' +
        '(422 `photo_not_in_project` names the first that is not); `tag_ids` must be tags of the workspace (422 `tag_not_found`).',
      params: ProjectIdParams, body: ReportCreate, response: { 202: Report },
    },
  }, async (req, reply) => {
    const report = await reports.create(req.actor, req.params.id, req.body);
    reply.code(202).header('location', `/v1/reports/${report.id}`);
    return report;
  });

  app.get('/v1/projects/:id/reports', {
    schema: { tags, summary: 'List a project\'s reports', description: 'Newest first.', params: ProjectIdParams, querystring: ReportListQuery, response: { 200: Page(Report, 'ReportPage') } },
  }, (req) => reports.list(req.actor, req.params.id, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/reports/:id', {
    schema: { tags, summary: 'Get a report', description: '`url` is set once `status` is `finished`.', params: ReportIdParams, response: { 200: Report } },
  }, (req) => reports.get(req.actor, req.params.id));

  app.delete('/v1/reports/:id', {
    schema: { tags, summary: 'Delete a report and its PDF', description: 'Your own reports; admins and managers also those of others (docs/roles.md).', params: ReportIdParams, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await reports.remove(req.actor, req.params.id);
    return reply.code(204).send(null);
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/v1/reports/:id/download',
    schema: {
      tags, summary: 'Download a finished report\'s PDF',
      description: '`Content-Type: application/pdf`, `Content-Disposition: attachment` with the title as the file name, `ETag`, single byte ranges and HEAD. ' +
        '409 `report_not_ready` until the report is finished.',
      params: ReportIdParams,
      headers: FileHeaders,
      response: {
        200: { description: 'The PDF.', content: { 'application/pdf': { schema: bytes } } },
        206: { description: 'The byte range asked for.', content: { 'application/pdf': { schema: bytes } } },
        304: { description: 'Not modified.', type: 'null' },
      },
    },
    handler: async (req, reply) => sendFile(reply, await reports.download(req.actor, req.params.id, fileRequestOf(req))),
  });
}
