import { Type } from '@sinclair/typebox';
import { badRequest } from '../../http/errors.ts';
import { ifMatchOf } from '../../http/etag.ts';
import { documentMultipart } from '../../http/openapi.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { ALSO_MULTIPART } from '../../http/validation.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import { AnnotationShapes } from './photos.annotations.ts';
import type { PhotoIntake } from './photos.intake.ts';
import { Photo, PhotoIdParams, PhotoImport, PhotoListQuery, PhotoPatch, PhotoUploadForm, ProjectPhotoListQuery } from './photos.schemas.ts';
import type { PhotosService } from './photos.service.ts';

const tags = ['Photos'];

export function photoRoutes(app: App, photos: PhotosService, intake: PhotoIntake): void {
  documentMultipart('POST', '/v1/projects/{id}/photos', PhotoUploadForm);
  app.post('/v1/projects/:id/photos', {
    schema: {
      tags, summary: 'Upload a photo (multipart) or import one by URL (JSON)',
      description: 'multipart/form-data with the photo in `file` (streamed to storage, never held whole in memory) and optional fields; ' +
        'or JSON `{source_url, …}`, which the server fetches (public addresses only, time and size limits). ' +
        'The type is sniffed from the bytes: JPEG, PNG, HEIC/HEIF or WebP, else 415. Too large → 413; more pixels than allowed → 422. ' +
        'Answers 201 with `processing_status: "pending"`; `photo.created` fires once the variants exist.',
      params: ProjectIdParams,
      body: { ...PhotoImport, [ALSO_MULTIPART]: true } as unknown as typeof PhotoImport,
      response: { 201: Photo },
    },
  }, async (req, reply) => {
    await photos.checkCanUpload(req.actor, req.params.id);
    let received;
    if (req.isMultipart()) {
      try {
        received = await intake.fromMultipart(req);
      } catch (err) {
        // What is left of a refused upload is not read: the connection closes after the answer.
        reply.header('connection', 'close');
        throw err;
      }
    } else if (req.body) {
      received = await intake.fromUrl(req.body);
    } else {
      return badRequest('bad_request', 'Send the photo as multipart/form-data (the file in `file`), or JSON `{"source_url": …}`.');
    }
    const photo = await photos.create(req.actor, req.params.id, received);
    reply.code(201).header('location', `/v1/photos/${photo.id}`);
    return photo;
  });

  app.get('/v1/projects/:id/photos', {
    schema: {
      tags, summary: 'List a project\'s photos',
      description: 'Newest upload first by default; `sort=captured_at` for most recently taken first.',
      params: ProjectIdParams, querystring: ProjectPhotoListQuery, response: { 200: Page(Photo, 'ProjectPhotoPage') },
    },
  }, (req) => photos.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }, req.params.id));

  app.get('/v1/photos', {
    schema: {
      tags, summary: 'List photos across projects',
      description: 'Every photo of the projects the caller can see, with filters. Newest upload first by default.',
      querystring: PhotoListQuery, response: { 200: Page(Photo, 'PhotoPage') },
    },
  }, (req) => photos.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/photos/:id', { schema: { tags, summary: 'Get a photo', params: PhotoIdParams, response: { 200: Photo } } },
    (req) => photos.get(req.actor, req.params.id));

  app.patch('/v1/photos/:id', {
    schema: { tags, summary: 'Update a photo\'s caption, time or coordinates (JSON merge patch)', params: PhotoIdParams, body: PhotoPatch, response: { 200: Photo } },
  }, (req) => photos.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/photos/:id', {
    schema: { tags, summary: 'Delete a photo and its files', params: PhotoIdParams, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await photos.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.put('/v1/photos/:id/annotations', {
    schema: {
      tags, summary: 'Replace a photo\'s annotations',
      description: 'Vector shapes over the photo, coordinates relative to the displayed image (0..1). The `annotated` variant is rendered by a job; ' +
        '`photo.updated` fires when it is ready. An empty list removes the annotations and the variant.',
      params: PhotoIdParams, body: AnnotationShapes, response: { 200: Photo },
    },
  }, (req) => photos.setAnnotations(req.actor, req.params.id, req.body.shapes, ifMatchOf(req)));
}
