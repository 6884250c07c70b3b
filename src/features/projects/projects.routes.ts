import { Type } from '@sinclair/typebox';
import { ifMatchOf } from '../../http/etag.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { User } from '../users/users.schemas.ts';
import {
  Project,
  ProjectCreate,
  ProjectIdParams,
  ProjectListQuery,
  ProjectMemberListQuery,
  ProjectMemberParams,
  ProjectPatch,
} from './projects.schemas.ts';
import type { ProjectsService } from './projects.service.ts';

const tags = ['Projects'];
const crew = ['Crew'];

export function projectRoutes(app: App, projects: ProjectsService): void {
  app.get('/v1/projects', {
    schema: {
      tags, summary: 'List projects',
      description: 'Active projects by default, newest first. Restricted users see only projects they created or are on the crew of. ' +
        '`tag_id` keeps the projects carrying that tag.',
      querystring: ProjectListQuery, response: { 200: Page(Project, 'ProjectPage') },
    },
  }, (req) => projects.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.post('/v1/projects', { schema: { tags, summary: 'Create a project (any role)', body: ProjectCreate, response: { 201: Project } } },
    async (req, reply) => {
      const project = await projects.create(req.actor, req.body);
      reply.code(201).header('location', `/v1/projects/${project.id}`);
      return project;
    });

  app.get('/v1/projects/:id', { schema: { tags, summary: 'Get a project', params: ProjectIdParams, response: { 200: Project } } },
    (req) => projects.get(req.actor, req.params.id));

  app.patch('/v1/projects/:id', { schema: { tags, summary: 'Update a project (JSON merge patch)', params: ProjectIdParams, body: ProjectPatch, response: { 200: Project } } },
    (req) => projects.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/projects/:id', { schema: { tags, summary: 'Delete a project and its crew (admin, manager)', params: ProjectIdParams, response: { 204: Type.Null() } } },
    async (req, reply) => {
      await projects.remove(req.actor, req.params.id, ifMatchOf(req));
      return reply.code(204).send(null);
    });

  app.post('/v1/projects/:id/archive', { schema: { tags, summary: 'Archive a project (idempotent)', params: ProjectIdParams, response: { 200: Project } } },
    (req) => projects.archive(req.actor, req.params.id));

  app.post('/v1/projects/:id/restore', { schema: { tags, summary: 'Restore an archived project (idempotent)', params: ProjectIdParams, response: { 200: Project } } },
    (req) => projects.restore(req.actor, req.params.id));

  app.get('/v1/projects/:id/members', {
    schema: { tags: crew, summary: 'List a project\'s crew (newest user first)', params: ProjectIdParams, querystring: ProjectMemberListQuery, response: { 200: Page(User, 'ProjectMemberPage') } },
  }, (req) => projects.listMembers(req.actor, req.params.id, { ...req.query, limit: req.query.limit ?? 50 }));

  app.put('/v1/projects/:id/members/:user_id', {
    schema: { tags: crew, summary: 'Add a user to the crew (idempotent)', params: ProjectMemberParams, response: { 200: User } },
  }, (req) => projects.addMember(req.actor, req.params.id, req.params.user_id));

  app.delete('/v1/projects/:id/members/:user_id', {
    schema: { tags: crew, summary: 'Remove a user from the crew (idempotent)', params: ProjectMemberParams, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await projects.removeMember(req.actor, req.params.id, req.params.user_id);
    return reply.code(204).send(null);
  });
}
