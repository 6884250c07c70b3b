import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../../http/errors.ts';
import { ifMatchOf } from '../../http/etag.ts';
import { documentMultipart } from '../../http/openapi.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { ALSO_MULTIPART } from '../../http/validation.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import { AnnotationShapes } from './photos.annotations.ts';
import type { PhotoIntake } from './photos.intake.ts';
import { Photo, PhotoIdParams, PhotoImport, PhotoListQuery, PhotoPatch, PhotoUploadForm, ProjectPhotoListQuery, type PhotoImportInput } from './photos.schemas.ts';
import type { PhotosService } from './photos.service.ts';

const tags = ['Photos'];

export function photoRoutes(app: App, photos: PhotosService, intake: PhotoIntake): void {
  /** Both uploads: access first (before a byte is read), then the bytes, then the row. */
  async function upload(req: FastifyRequest, body: PhotoImportInput | undefined, reply: FastifyReply, projectId: string | null) {
    await photos.checkCanUpload(req.actor, projectId);
    let received;
    if (req.isMultipart()) {
      try {
        received = await intake.fromMultipart(req);
      } catch (err) {
        // What is left of a refused upload is not read: the connection closes after the answer.
        reply.header('connection', 'close');
        throw err;
      }
    } else if (body) {
      received = await intake.fromUrl(body);
    } else {
      return badRequest('bad_request', 'Send the photo as multipart/form-data (the file in `file`), or JSON `{"source_url": …}`.');
    }
    const photo = await photos.create(req.actor, projectId, received);
    reply.code(201).header('location', `/v1/photos/${photo.id}`);
    return photo;
  }

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
  }, (req, reply) => upload(req, req.body, reply, req.params.id));

  documentMultipart('POST', '/v1/photos', PhotoUploadForm);
  app.post('/v1/photos', {
    schema: {
      tags, summary: 'Upload a photo without a project: it files itself by its location',
      operationId: 'uploadPhoto',
      description: 'The same upload as `POST /v1/projects/{id}/photos` (multipart, or JSON `{source_url, …}`), for a photo whose project is not known. ' +
        'Once processed, it is filed under the project whose `geofence` holds its position (the client\'s `lat`/`lon`, else EXIF GPS; the smallest fence wins), ' +
        'else under the nearest project without a fence within `JOBSITE_AUTO_ASSIGN_METERS` (default 300 m), among the active projects the uploader can see: ' +
        '`photo.assigned` fires with `assigned_by` `geofence` or `nearest`. Otherwise (no position, or no project near) it waits unfiled with `project_id: null` ' +
        '(`GET /v1/photos?project_id=none`) until someone moves it (`PATCH /v1/photos/{id}` with `project_id`). Answers 201 with `project_id: null` and ' +
        '`processing_status: "pending"`. docs/photos.md, "Photos that file themselves".',
      body: { ...PhotoImport, [ALSO_MULTIPART]: true } as unknown as typeof PhotoImport,
      response: { 201: Photo },
    },
  }, (req, reply) => upload(req, req.body, reply, null));

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
      description: 'Every photo of the projects the caller can see, with filters, and the unfiled ones they can see (every role but restricted sees them all; ' +
        'a restricted user only their own uploads). `project_id=none`: only the unfiled photos, the inbox of photos waiting to be moved to a project. Newest upload first by default.',
      querystring: PhotoListQuery, response: { 200: Page(Photo, 'PhotoPage') },
    },
  }, (req) => photos.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/photos/:id', { schema: { tags, summary: 'Get a photo', params: PhotoIdParams, response: { 200: Photo } } },
    (req) => photos.get(req.actor, req.params.id));

  app.patch('/v1/photos/:id', {
    schema: {
      tags, summary: 'Update a photo\'s caption, time or coordinates, or move it to a project (JSON merge patch)', params: PhotoIdParams, body: PhotoPatch, response: { 200: Photo },
      description: '`project_id` files an unfiled photo or moves a filed one: you must be allowed to change the photo (restricted users: their own) and see the ' +
        'project (404 otherwise). `photo.assigned` fires (`assigned_by: "user"`); a moved photo leaves its old project\'s cover, tasks and share links, and its comments go with it.',
    },
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
