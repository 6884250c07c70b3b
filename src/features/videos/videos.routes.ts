import { Type } from '@sinclair/typebox';
import { ApiError } from '../../http/errors.ts';
import { ifMatchOf } from '../../http/etag.ts';
import { documentMultipart } from '../../http/openapi.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import type { VideoIntake } from './videos.intake.ts';
import { ProjectVideoListQuery, Video, VideoIdParams, VideoListQuery, VideoPatch, VideoUploadForm } from './videos.schemas.ts';
import type { VideosService } from './videos.service.ts';

const tags = ['Videos'];

export function videoRoutes(app: App, videos: VideosService, intake: VideoIntake): void {
  documentMultipart('POST', '/v1/projects/{id}/videos', VideoUploadForm);
  app.post('/v1/projects/:id/videos', {
    schema: {
      tags, summary: 'Upload a video (multipart)',
      description: 'multipart/form-data with the video in `file` (streamed to storage, never held whole in memory) and optional fields. ' +
        'The type is sniffed from the bytes: MP4, QuickTime (MOV) or WebM, else 415. Too large → 413. ' +
        'Answers 201 with `processing_status: "pending"`; `video.created` fires once it is probed and has its poster.',
      params: ProjectIdParams,
      response: { 201: Video },
    },
  }, async (req, reply) => {
    await videos.checkCanUpload(req.actor, req.params.id);
    if (!req.isMultipart()) {
      throw new ApiError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the video as multipart/form-data, the file in the part named `file`.');
    }
    let received;
    try {
      received = await intake.fromMultipart(req);
    } catch (err) {
      // What is left of a refused upload is not read: the connection closes after the answer.
      reply.header('connection', 'close');
      throw err;
    }
    const video = await videos.create(req.actor, req.params.id, received);
    reply.code(201).header('location', `/v1/videos/${video.id}`);
    return video;
  });

  app.get('/v1/projects/:id/videos', {
    schema: {
      tags, summary: 'List a project\'s videos',
      description: 'Newest upload first by default; `sort=captured_at` for most recently recorded first.',
      params: ProjectIdParams, querystring: ProjectVideoListQuery, response: { 200: Page(Video, 'ProjectVideoPage') },
    },
  }, (req) => videos.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }, req.params.id));

  app.get('/v1/videos', {
    schema: {
      tags, summary: 'List videos across projects',
      description: 'Every video of the projects the caller can see, with filters. Newest upload first by default.',
      querystring: VideoListQuery, response: { 200: Page(Video, 'VideoPage') },
    },
  }, (req) => videos.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/videos/:id', { schema: { tags, summary: 'Get a video', params: VideoIdParams, response: { 200: Video } } },
    (req) => videos.get(req.actor, req.params.id));

  app.patch('/v1/videos/:id', {
    schema: { tags, summary: 'Update a video\'s caption, time or coordinates (JSON merge patch)', params: VideoIdParams, body: VideoPatch, response: { 200: Video } },
  }, (req) => videos.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/videos/:id', {
    schema: { tags, summary: 'Delete a video and its files', params: VideoIdParams, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await videos.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
}
