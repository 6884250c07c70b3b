import { Type } from '@sinclair/typebox';
import { ifMatchOf } from '../../http/etag.ts';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { User, UserCreate, UserCreated, UserIdParams, UserListQuery, UserPatch } from './users.schemas.ts';
import type { UsersService } from './users.service.ts';

const tags = ['Users'];

export function userRoutes(app: App, users: UsersService): void {
  app.get('/v1/users/me', { schema: { tags, summary: 'The user behind the calling API key or session', response: { 200: User } } },
    (req) => users.me(req.actor));

  app.get('/v1/users', { schema: { tags, summary: 'List users (newest first)', querystring: UserListQuery, response: { 200: Page(User, 'UserPage') } } },
    (req) => users.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.post('/v1/users', { schema: { tags, summary: 'Add a user and invite them (admin, manager)', body: UserCreate, response: { 201: UserCreated } } },
    async (req, reply) => {
      const user = await users.create(req.actor, req.body);
      reply.code(201).header('location', `/v1/users/${user.id}`);
      return user;
    });

  app.get('/v1/users/:id', { schema: { tags, summary: 'Get a user', params: UserIdParams, response: { 200: User } } },
    (req) => users.get(req.actor, req.params.id));

  app.patch('/v1/users/:id', { schema: { tags, summary: 'Update a user (merge semantics)', params: UserIdParams, body: UserPatch, response: { 200: User } } },
    (req) => users.update(req.actor, req.params.id, req.body, ifMatchOf(req)));

  app.delete('/v1/users/:id', { schema: { tags, summary: 'Deactivate a user and revoke their keys', params: UserIdParams, response: { 204: Type.Null() } } },
    async (req, reply) => {
      await users.deactivate(req.actor, req.params.id, ifMatchOf(req));
      return reply.code(204).send(null);
    });
}
