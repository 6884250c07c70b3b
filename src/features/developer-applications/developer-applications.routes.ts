import type { FastifyRequest } from 'fastify';
import { clientBucket } from '../../http/client-address.ts';
import { ApiError } from '../../http/errors.ts';
import type { RateLimiter } from '../../http/rate-limit.ts';
import type { App } from '../../http/types.ts';
import {
  DeveloperApplicationCreate, DeveloperApplicationIdParams, DeveloperApplicationReceipt, DeveloperApplicationStatus, StatusTokenHeaders,
} from './developer-applications.schemas.ts';
import type { DeveloperApplicationsService } from './developer-applications.service.ts';

const tags = ['Developer program'];

/** Applications are small: 5,000 characters of intended use and a few short fields. */
export const APPLICATION_BODY_LIMIT = 32 * 1024;

declare module 'fastify' {
  interface FastifyInstance {
    /** The per-address limiter of applications; `flush()` shares its counts now (tests). */
    applicationLimiter: RateLimiter;
  }
}

export function developerApplicationRoutes(app: App, applications: DeveloperApplicationsService, limiter: RateLimiter): void {
  app.decorate('applicationLimiter', limiter);
  // Counted before the body is read or checked: a flood of malformed or oversized bodies counts too.
  const perAddress = async (req: FastifyRequest) => {
    const d = await limiter.hit(`app:${clientBucket(req.ip)}`);
    if (!d.allowed) {
      throw new ApiError(429, 'application_rate_limited', 'Too many requests',
        `At most ${d.limit} applications an hour may come from one address; try again in ${d.resetSeconds} s.`, {},
        { 'retry-after': String(d.resetSeconds) });
    }
  };

  app.post('/v1/developer-applications', {
    config: { auth: false },
    bodyLimit: APPLICATION_BODY_LIMIT,
    onRequest: perAddress,
    schema: {
      tags, summary: 'Apply for API access (no key needed)',
      description: 'Public. The operator reviews the application; on approval the API key is e-mailed to `email`. ' +
        'Answers 202 with the application id and a `status_token` (shown only here) for following its status. ' +
        `One pending application per e-mail address (409 \`application_pending\`); bodies over ${APPLICATION_BODY_LIMIT / 1024} KiB are 413; ` +
        'each address may send a limited number of applications an hour (429 `application_rate_limited` with `Retry-After`).',
      security: [],
      body: DeveloperApplicationCreate,
      response: {
        202: DeveloperApplicationReceipt,
        // Public routes get no 429 by default (it is per key elsewhere); this one is limited per address.
        429: { description: 'Problem (RFC 9457): `application_rate_limited`, with `Retry-After`', content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } } },
      },
    },
  }, async (req, reply) => {
    const receipt = await applications.apply(req.body, req.ip);
    reply.code(202).header('location', `/v1/developer-applications/${receipt.id}`);
    return receipt;
  });

  app.get('/v1/developer-applications/:id', {
    config: { auth: false },
    schema: {
      tags, summary: 'The status of your application (with its status token)',
      description: 'Public. Send the `status_token` from the receipt as `X-Application-Token`. Shows the status and nothing else; ' +
        'a wrong token answers 404 exactly like an unknown id.',
      security: [],
      params: DeveloperApplicationIdParams,
      headers: StatusTokenHeaders,
      response: { 200: DeveloperApplicationStatus },
    },
  }, (req) => applications.status(req.params.id, req.headers['x-application-token']));
}
