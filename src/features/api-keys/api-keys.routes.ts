import { Type } from '@sinclair/typebox';
import { Page } from '../../http/pagination.ts';
import type { App } from '../../http/types.ts';
import { ApiKey, ApiKeyCreate, ApiKeyIdParams, ApiKeyListQuery, ApiKeyRotate, ApiKeyWithSecret } from './api-keys.schemas.ts';
import type { ApiKeysService } from './api-keys.service.ts';

const tags = ['API keys'];

export function apiKeyRoutes(app: App, keys: ApiKeysService): void {
  app.get('/v1/api-keys', { schema: { tags, summary: 'List API keys (yours; admins: everyone\'s)', querystring: ApiKeyListQuery, response: { 200: Page(ApiKey, 'ApiKeyPage') } } },
    (req) => keys.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.post('/v1/api-keys', { config: { idempotencySecretFields: ['key'] }, schema: { tags, summary: 'Create an API key; the secret is returned once', body: ApiKeyCreate, response: { 201: ApiKeyWithSecret } } },
    async (req, reply) => {
      const key = await keys.create(req.actor, req.body);
      reply.code(201).header('location', `/v1/api-keys/${key.id}`);
      return key;
    });

  app.get('/v1/api-keys/:id', { schema: { tags, summary: 'Get an API key (never its secret)', params: ApiKeyIdParams, response: { 200: ApiKey } } },
    (req) => keys.get(req.actor, req.params.id));

  app.post('/v1/api-keys/:id/rotate', {
    config: { idempotencySecretFields: ['key'] },
    // The body is optional: no body is a rotation with the default grace period.
    preValidation: async (req) => { req.body ??= {}; },
    schema: {
      tags, summary: 'Rotate the key\'s secret; the new one is returned once',
      description: 'The old secret keeps working alongside the new one for `grace_seconds` (default 24 h; `previous_secret_expires_at` says until when), ' +
        'then gets 401 `rotated_api_key`. `grace_seconds: 0` stops it at once (within 5 s on other API processes). ' +
        'A revoked key answers 409 `api_key_revoked`, an expired one 409 `api_key_expired`.',
      params: ApiKeyIdParams, body: ApiKeyRotate, response: { 200: ApiKeyWithSecret },
    },
  }, (req) => keys.rotate(req.actor, req.params.id, req.body));

  app.delete('/v1/api-keys/:id', { schema: { tags, summary: 'Revoke an API key (idempotent)', params: ApiKeyIdParams, response: { 204: Type.Null() } } },
    async (req, reply) => {
      await keys.revoke(req.actor, req.params.id);
      return reply.code(204).send(null);
    });
}
