import { Type } from '@sinclair/typebox';
import { ifMatchOf } from '../../http/etag.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import { ProjectTaskListQuery, Task, TaskCreate, TaskIdParams, TaskListQuery, TaskPatch } from './tasks.schemas.ts';
import type { TasksService } from './tasks.service.ts';

const tags = ['Tasks'];

export function taskRoutes(app: App, tasks: TasksService): void {
  app.get('/v1/projects/:id/tasks', {
    schema: {
      tags, summary: 'List a project\'s tasks',
      description: 'Newest first by default; `sort=due_at` for soonest due first (undated last).',
      params: ProjectIdParams, querystring: ProjectTaskListQuery, response: { 200: Page(Task, 'ProjectTaskPage') },
    },
  }, (req) => tasks.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }, req.params.id));

  app.post('/v1/projects/:id/tasks', {
    schema: {
      tags, summary: 'Create a task (admin, manager, standard)',
      description: 'Emits `task.created`, then `task.assigned` when it has an assignee (who is notified unless they are the caller). ' +
        'The assignee must be an active user who can see the project (422 `assignee_not_found`, `user_inactive`, `assignee_cannot_see_project`); ' +
        'attached photos must be photos of the project (422 `photo_not_in_project`).',
      params: ProjectIdParams, body: TaskCreate, response: { 201: Task },
    },
  }, async (req, reply) => {
    const task = await tasks.create(req.actor, req.params.id, req.body);
    reply.code(201).header('location', `/v1/tasks/${task.id}`);
    return task;
  });

  app.get('/v1/tasks', {
    schema: {
      tags, summary: 'List tasks across projects',
      description: 'Every task of the projects the caller can see, with filters. Newest first by default; `sort=due_at` for soonest due first (undated last).',
      querystring: TaskListQuery, response: { 200: Page(Task, 'TaskPage') },
    },
  }, (req) => tasks.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/tasks/:id', { schema: { tags, summary: 'Get a task', params: TaskIdParams, response: { 200: Task } } },
    (req) => tasks.get(req.actor, req.params.id));

  app.patch('/v1/tasks/:id', {
    schema: {
      tags, summary: 'Update a task (JSON merge patch; admin, manager, standard)',
      description: 'Emits one event: `task.assigned` when `assignee_id` changes (including to null; `data` is the whole task, other changes included), ' +
        'else `task.updated`; none when nothing changes.',
      params: TaskIdParams, body: TaskPatch, response: { 200: Task },
    },
  }, (req) => tasks.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/tasks/:id', {
    schema: { tags, summary: 'Delete a task (admin, manager; standard only their own)', params: TaskIdParams, response: { 204: Type.Null() } },
  }, async (req, reply) => {
    await tasks.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });

  app.post('/v1/tasks/:id/complete', {
    schema: {
      tags, summary: 'Complete a task (idempotent; anyone who can see the project)',
      description: 'Completing a completed task returns it unchanged, with no event.',
      params: TaskIdParams, response: { 200: Task },
    },
  }, (req) => tasks.complete(req.actor, req.params.id));

  app.post('/v1/tasks/:id/reopen', {
    schema: {
      tags, summary: 'Reopen a completed task (idempotent; anyone who can see the project)',
      description: 'Clears `completed_at` and `completed_by`. Reopening an open task returns it unchanged, with no event.',
      params: TaskIdParams, response: { 200: Task },
    },
  }, (req) => tasks.reopen(req.actor, req.params.id));
}
