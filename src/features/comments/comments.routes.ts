import { Type } from '@sinclair/typebox';
import { ifMatchOf } from '../../http/etag.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { Comment, CommentCreate, CommentIdParams, CommentListQuery, CommentPatch, TaskIdParams } from './comments.schemas.ts';
import type { CommentsService, CommentSubjectRef } from './comments.service.ts';

const tags = ['Comments'];

const SUBJECTS = [
  { type: 'project', path: 'projects', noun: 'project', params: Type.Object({ id: Type.String({ maxLength: 100, description: 'prj_…' }) }), page: 'ProjectCommentPage' },
  { type: 'photo', path: 'photos', noun: 'photo', params: Type.Object({ id: Type.String({ maxLength: 100, description: 'pho_…' }) }), page: 'PhotoCommentPage' },
  { type: 'task', path: 'tasks', noun: 'task', params: TaskIdParams, page: 'TaskCommentPage' },
] as const;

const MENTIONS = '`@handle` in the body mentions an active user of the workspace who can see the project, and notifies them (`mention`); ' +
  'unknown handles, deactivated users, users who cannot see the project and e-mail addresses stay plain text.';

export function commentRoutes(app: App, comments: CommentsService): void {
  for (const s of SUBJECTS) {
    const subject = (id: string): CommentSubjectRef => ({ type: s.type, id });

    app.get(`/v1/${s.path}/:id/comments`, {
      schema: {
        tags, summary: `List a ${s.noun}'s comments (oldest first)`,
        description: `The conversation on the ${s.noun}, oldest first, keyset-paginated.` +
          (s.type === 'project' ? ' Only comments on the project itself; comments on its photos and tasks are listed on them.' : ''),
        params: s.params, querystring: CommentListQuery, response: { 200: Page(Comment, s.page) },
      },
    }, (req) => comments.list(req.actor, subject(req.params.id), { ...req.query, limit: req.query.limit ?? 50 }));

    app.post(`/v1/${s.path}/:id/comments`, {
      schema: {
        tags, summary: `Comment on a ${s.noun}`,
        description: `Everyone who can see the project may comment, restricted users included. ${MENTIONS}` +
          (s.type === 'task' ? ' The task\'s assignee is notified (`task_comment`) unless they wrote it or are mentioned (then the `mention` alone).' : ''),
        params: s.params, body: CommentCreate, response: { 201: Comment },
      },
    }, async (req, reply) => {
      const comment = await comments.create(req.actor, subject(req.params.id), req.body);
      reply.code(201).header('location', `/v1/comments/${comment.id}`);
      return comment;
    });
  }

  app.get('/v1/comments/:id', { schema: { tags, summary: 'Get a comment', params: CommentIdParams, response: { 200: Comment } } },
    (req) => comments.get(req.actor, req.params.id));

  app.patch('/v1/comments/:id', {
    schema: {
      tags, summary: 'Edit your comment',
      description: `Authors only (any role; others 403). ${MENTIONS} Only users the edit newly mentions are notified.`,
      params: CommentIdParams, body: CommentPatch, response: { 200: Comment },
    },
  }, (req) => comments.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/comments/:id', {
    schema: {
      tags, summary: 'Delete a comment',
      description: 'Authors delete their own; admins and managers any comment (others 403). The notifications the comment caused are deleted with it.',
      params: CommentIdParams, response: { 204: Type.Null() },
    },
  }, async (req, reply) => {
    await comments.remove(req.actor, req.params.id, ifMatchOf(req));
    return reply.code(204).send(null);
  });
}
