import { Type } from '@sinclair/typebox';
import { ApiError } from '../../http/errors.ts';
import { ifMatchOf } from '../../http/etag.ts';
import { documentMultipart } from '../../http/openapi.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { bytes, FileHeaders, fileRequestOf, sendFile } from '../../storage/files.routes.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import { Document, DocumentDownloadQuery, DocumentIdParams, DocumentListQuery, DocumentPatch, DocumentUploadForm } from './documents.schemas.ts';
import type { DocumentsService } from './documents.service.ts';

const tags = ['Documents'];

export function documentRoutes(app: App, documents: DocumentsService): void {
  documentMultipart('POST', '/v1/projects/{id}/documents', DocumentUploadForm);
  app.post('/v1/projects/:id/documents', {
    schema: {
      tags, summary: 'Upload a document (multipart)',
      description: 'multipart/form-data with the file in `file` (streamed to storage with its SHA-256) and an optional `name`. ' +
        'The type is sniffed from the bytes against an allow-list (PDF, images, .docx/.xlsx/.pptx, CSV, text, DWG/DXF); anything else, ' +
        'executables especially, is a 415. Over JOBSITE_DOCUMENT_MAX_BYTES (default 100 MB) → 413. Emits `document.uploaded`.',
      params: ProjectIdParams, response: { 201: Document },
    },
  }, async (req, reply) => {
    if (!req.isMultipart()) {
      throw new ApiError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the document as multipart/form-data, the file in `file`.');
    }
    try {
      const doc = await documents.upload(req.actor, req.params.id, req);
      reply.code(201).header('location', `/v1/documents/${doc.id}`);
      return doc;
    } catch (err) {
      reply.header('connection', 'close');
      throw err;
    }
  });

  app.get('/v1/projects/:id/documents', {
    schema: { tags, summary: 'List a project\'s documents (newest first)', params: ProjectIdParams, querystring: DocumentListQuery, response: { 200: Page(Document, 'DocumentPage') } },
  }, (req) => documents.list(req.actor, req.params.id, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/documents/:id', { schema: { tags, summary: 'Get a document', params: DocumentIdParams, response: { 200: Document } } },
    (req) => documents.get(req.actor, req.params.id));

  app.patch('/v1/documents/:id', {
    schema: { tags, summary: 'Rename a document', params: DocumentIdParams, body: DocumentPatch, response: { 200: Document } },
  }, (req) => documents.rename(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/documents/:id', {
    schema: { tags, summary: 'Delete a document and its file', params: DocumentIdParams, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await documents.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.route({
    method: ['GET', 'HEAD'],
    url: '/v1/documents/:id/download',
    schema: {
      tags, summary: 'Download a document\'s exact bytes',
      description: '`Content-Disposition: attachment` with the document\'s name, its `Content-Type`, `ETag` (the SHA-256), single byte ranges and HEAD. ' +
        'A PDF asked for with `?disposition=inline` is sent `inline` with `frame-ancestors \'self\'`, for a preview inside this origin\'s pages.',
      params: DocumentIdParams,
      querystring: DocumentDownloadQuery,
      headers: FileHeaders,
      response: {
        200: { description: 'The bytes.', content: { '*/*': { schema: bytes } } },
        206: { description: 'The byte range asked for.', content: { '*/*': { schema: bytes } } },
        304: { description: 'Not modified.', type: 'null' },
      },
    },
    handler: async (req, reply) => sendFile(reply, await documents.download(req.actor, req.params.id, fileRequestOf(req), req.query.disposition)),
  });
}
