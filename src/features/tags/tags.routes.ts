import { Type } from '@sinclair/typebox';
import { ifMatchOf } from '../../http/etag.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { Photo } from '../photos/photos.schemas.ts';
import type { PhotosService } from '../photos/photos.service.ts';
import { Project } from '../projects/projects.schemas.ts';
import type { ProjectsService } from '../projects/projects.service.ts';
import { Tag, TagCreate, TagIdParams, TaggingParams, TagListQuery, TagPatch } from './tags.schemas.ts';
import type { TagsService } from './tags.service.ts';

const tags = ['Tags'];
const idempotent = 'Idempotent: only an actual change moves `updated_at` and emits';
const nameTaken = {
  description: 'Problem (RFC 9457): `tag_name_taken`, the name is another tag\'s regardless of case; `tag_id` names that tag.',
  content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
};

export function tagRoutes(app: App, tagsService: TagsService, projects: ProjectsService, photos: PhotosService): void {
  app.get('/v1/tags', {
    schema: {
      tags, summary: 'List the workspace\'s tags (by name)',
      description: 'Every role sees every tag of the workspace. Sorted by name (case-insensitively) unless `sort=created_at`.',
      querystring: TagListQuery, response: { 200: Page(Tag, 'TagPage') },
    },
  }, (req) => tagsService.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.post('/v1/tags', {
    schema: {
      tags, summary: 'Create a tag (admin, manager, standard)',
      description: 'A name already used regardless of case answers 409 `tag_name_taken` with `tag_id` naming the tag that has it. Emits `tag.created`.',
      body: TagCreate, response: { 201: Tag, 409: nameTaken },
    },
  }, async (req, reply) => {
    const tag = await tagsService.create(req.actor, req.body);
    reply.code(201).header('location', `/v1/tags/${tag.id}`);
    return tag;
  });

  app.get('/v1/tags/:id', { schema: { tags, summary: 'Get a tag', params: TagIdParams, response: { 200: Tag } } },
    (req) => tagsService.get(req.actor, req.params.id));

  app.patch('/v1/tags/:id', {
    schema: {
      tags, summary: 'Rename or recolour a tag (admin, manager)',
      description: 'Emits `tag.updated`; every project and photo carrying the tag gets a new `updated_at` (no per-object events).',
      params: TagIdParams, body: TagPatch, response: { 200: Tag, 409: nameTaken },
    },
  }, (req) => tagsService.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/tags/:id', {
    schema: {
      tags, summary: 'Delete a tag, removing it from every project and photo (admin, manager)',
      description: 'Emits `tag.deleted`; every project and photo that carried the tag gets a new `updated_at` (no per-object events).',
      params: TagIdParams, response: { 204: Type.Null() },
    },
  }, async (req, reply) => {
    await tagsService.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.put('/v1/projects/:id/tags/:tag_id', {
    schema: {
      tags, summary: 'Tag a project (who may edit the project)',
      description: `${idempotent} \`project.updated\`. Answers the project.`,
      params: TaggingParams, response: { 200: Project },
    },
  }, (req) => projects.applyTag(req.actor, req.params.id, req.params.tag_id));

  app.delete('/v1/projects/:id/tags/:tag_id', {
    schema: {
      tags, summary: 'Untag a project (who may edit the project)',
      description: `${idempotent} \`project.updated\`.`,
      params: TaggingParams, response: { 204: Type.Null() },
    },
  }, async (req, reply) => {
    await projects.removeTag(req.actor, req.params.id, req.params.tag_id);
    return reply.code(204).send(null);
  });

  app.put('/v1/photos/:id/tags/:tag_id', {
    schema: {
      tags, summary: 'Tag a photo (who may change the photo)',
      description: `${idempotent} \`photo.updated\`. Answers the photo. Restricted users tag only photos they uploaded.`,
      params: TaggingParams, response: { 200: Photo },
    },
  }, (req) => photos.applyTag(req.actor, req.params.id, req.params.tag_id));

  app.delete('/v1/photos/:id/tags/:tag_id', {
    schema: {
      tags, summary: 'Untag a photo (who may change the photo)',
      description: `${idempotent} \`photo.updated\`.`,
      params: TaggingParams, response: { 204: Type.Null() },
    },
  }, async (req, reply) => {
    await photos.removeTag(req.actor, req.params.id, req.params.tag_id);
    return reply.code(204).send(null);
  });
}
