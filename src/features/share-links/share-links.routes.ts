import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { clientBucket } from '../../http/client-address.ts';
import { Page } from '../../http/pagination.ts';
import type { RateLimiter } from '../../http/rate-limit.ts';
import type { App } from '../../http/types.ts';
import { ProjectIdParams } from '../projects/projects.schemas.ts';
import { renderBusyPage, renderGonePage, sharePageCsp } from './share-links.page.ts';
import type { SharePages } from './share-links.public.ts';
import { ShareLink, ShareLinkCreate, ShareLinkIdParams, ShareLinkListQuery } from './share-links.schemas.ts';
import type { ShareLinksService } from './share-links.service.ts';

const tags = ['Share links'];

export function shareLinkRoutes(app: App, links: ShareLinksService): void {
  app.post('/v1/projects/:id/share-links', {
    schema: {
      tags, summary: 'Share photos or a report by link',
      description: 'Makes a public page, `url` (`/s/{token}`), that shows the chosen photos or one finished report of the project to anyone who has it, ' +
        'without an account. Exactly one of `photo_ids` and `report_id` (422 `share_link_content`); photos must be the project\'s (422 `photo_not_in_project`), ' +
        'the report too (422 `report_not_in_project`) and finished (409 `report_not_ready`); `expires_at` in the future (400). Anyone who can see the project ' +
        'may share it. Emits `share_link.created`.',
      params: ProjectIdParams, body: ShareLinkCreate, response: { 201: ShareLink },
    },
  }, async (req, reply) => {
    const link = await links.create(req.actor, req.params.id, req.body);
    reply.code(201).header('location', `/v1/share-links/${link.id}`);
    return link;
  });

  app.get('/v1/share-links', {
    schema: {
      tags, summary: 'List share links',
      description: 'The links of every project the caller can see (restricted users: their projects), whoever made them; newest first. ' +
        '`status` filters `active`, `expired` or `revoked`.',
      querystring: ShareLinkListQuery, response: { 200: Page(ShareLink, 'ShareLinkPage') },
    },
  }, (req) => links.list(req.actor, { ...req.query, limit: req.query.limit ?? 50 }));

  app.get('/v1/share-links/:id', {
    schema: { tags, summary: 'Get a share link', description: 'With its `url`, `view_count` and `last_viewed_at`.', params: ShareLinkIdParams, response: { 200: ShareLink } },
  }, (req) => links.get(req.actor, req.params.id));

  app.delete('/v1/share-links/:id', {
    schema: {
      tags, summary: 'Turn a share link off',
      description: 'Revokes the link at once: its page answers 410 from the next request. Signed image and PDF URLs the page already handed out stop ' +
        'within their normal lifetime (`JOBSITE_URL_TTL_SECONDS`). Your own links; admins and managers also those of others. The link stays listed as ' +
        '`revoked`; revoking it again changes nothing. Emits `share_link.revoked`.',
      params: ShareLinkIdParams, response: { 204: Type.Null() },
    },
  }, async (req, reply) => {
    await links.revoke(req.actor, req.params.id);
    return reply.code(204).send(null);
  });
}

/**
 * The public page, `/s/{token}`: HTML for a browser, outside /v1 and without a key; `limiter`
 * counts the pages each client address opens (a 429 page past its limit).
 */
export function sharePageRoutes(app: App, pages: SharePages, imageSources: string[], limiter: RateLimiter): void {
  const csp = sharePageCsp(imageSources);
  const send = (reply: FastifyReply, status: number, html: string) => reply.code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex, nofollow')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', csp)
    .send(html);

  app.route({
    method: ['GET', 'HEAD'],
    url: '/s/:token',
    config: { auth: false },
    schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 200 }) }) },
    handler: async (req, reply) => {
      const allowed = await limiter.hit(`share:addr:${clientBucket(req.ip)}`);
      if (!allowed.allowed) {
        reply.header('retry-after', String(allowed.resetSeconds));
        return send(reply, 429, renderBusyPage(allowed.resetSeconds));
      }
      const page = await pages.open((req.params as { token: string }).token, req.method === 'GET');
      return page.status === 200 ? send(reply, 200, page.html) : send(reply, page.status, renderGonePage(page.reason));
    },
  });
}
