import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import type { Config } from './config.ts';
import { Availability } from './db/availability.ts';
import type { Db } from './db/database.ts';
import { newId } from './ids.ts';
import { ApiKeyAuthenticator, registerAuth } from './http/auth.ts';
import { SessionAuthenticator } from './http/session-auth.ts';
import { createMailer } from './mail/mailer.ts';
import { PasswordTokens } from './features/sessions/password-tokens.service.ts';
import { SessionsService, type SignInLimiters } from './features/sessions/sessions.service.ts';
import { sessionRoutes } from './features/sessions/sessions.routes.ts';
import { databaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS, registerErrorHandling, sendProblem, toApiError } from './http/error-handler.ts';
import { ApiError } from './http/errors.ts';
import { registerDraining } from './http/draining.ts';
import { registerEtags } from './http/etag.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { registerMetrics } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { registerPageLinks } from './http/pagination.ts';
import { RateLimiter, registerRateLimit } from './http/rate-limit.ts';
import type { App } from './http/types.ts';
import { registerValidation } from './http/validation.ts';
import { registerWebApp, signedImageSources, type WebApp } from './http/web-app.ts';
import { decodeUtf8, unsafeTextError } from './http/text-input.ts';
import { answerClientError } from './http/client-error.ts';
import { ProjectsService } from './features/projects/projects.service.ts';
import { projectRoutes } from './features/projects/projects.routes.ts';
import { UsersService } from './features/users/users.service.ts';
import { userRoutes } from './features/users/users.routes.ts';
import { ApiKeysService } from './features/api-keys/api-keys.service.ts';
import { apiKeyRoutes } from './features/api-keys/api-keys.routes.ts';
import { WorkspacesService } from './features/workspaces/workspaces.service.ts';
import { workspaceRoutes } from './features/workspaces/workspaces.routes.ts';
import { WebhooksService } from './features/webhooks/webhooks.service.ts';
import { webhookRoutes } from './features/webhooks/webhooks.routes.ts';
import { parseAllowList } from './http/ssrf-guard.ts';
import { EventLog } from './features/events/events.log.ts';
import { EventsService } from './features/events/events.service.ts';
import { eventRoutes } from './features/events/events.routes.ts';
import type { BlobStore } from './storage/blob-store.ts';
import { createBlobStore } from './storage/create-blob-store.ts';
import { FilesService } from './storage/files.service.ts';
import { fileRoutes } from './storage/files.routes.ts';
import multipart from '@fastify/multipart';
import { PhotoIntake } from './features/photos/photos.intake.ts';
import { TagsService } from './features/tags/tags.service.ts';
import { tagRoutes } from './features/tags/tags.routes.ts';
import { DocumentsService } from './features/documents/documents.service.ts';
import { documentRoutes } from './features/documents/documents.routes.ts';
import { NotificationsService } from './features/notifications/notifications.service.ts';
import { notificationRoutes } from './features/notifications/notifications.routes.ts';
import { PhotosService } from './features/photos/photos.service.ts';
import { photoRoutes } from './features/photos/photos.routes.ts';
import { VideoIntake } from './features/videos/videos.intake.ts';
import { videoRoutes } from './features/videos/videos.routes.ts';
import { ReportsService } from './features/reports/reports.service.ts';
import { reportRoutes } from './features/reports/reports.routes.ts';
import { ExportsService } from './features/exports/exports.service.ts';
import { exportRoutes } from './features/exports/exports.routes.ts';
import { VideosService } from './features/videos/videos.service.ts';
import { developerApplicationRoutes } from './features/developer-applications/developer-applications.routes.ts';
import { DeveloperApplicationsService } from './features/developer-applications/developer-applications.service.ts';
import { syncOperatorWebhook } from './features/developer-applications/developer-applications.operator-webhook.ts';
import { Notifier } from './features/notifications/notifications.service.ts';
import { CommentsService } from './features/comments/comments.service.ts';
import { commentRoutes } from './features/comments/comments.routes.ts';
import { TasksService } from './features/tasks/tasks.service.ts';
import { taskRoutes } from './features/tasks/tasks.routes.ts';
import { ShareLinksService } from './features/share-links/share-links.service.ts';
import { SharePages } from './features/share-links/share-links.public.ts';
import { sharePageRoutes, shareLinkRoutes } from './features/share-links/share-links.routes.ts';
import { ShareTokens } from './features/share-links/share-links.tokens.ts';
import { loadUrlSigningSecret } from './storage/url-signing.repository.ts';
import { SyncService } from './features/sync/sync.service.ts';
import { syncRoutes } from './features/sync/sync.routes.ts';
import { SearchService } from './features/search/search.service.ts';
import { searchRoutes } from './features/search/search.routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The blob store (file or S3) the app was built with. */
    blobs: BlobStore;
    /** Failed sign-ins per e-mail and per address; `flush()` shares the counts now (tests). */
    signInLimiters: SignInLimiters;
  }
}

export interface AppDeps {
  config: Config;
  db: Db;
  logger?: FastifyServerOptions['logger'];
  /** A logger of the process's own (the CLI's: pretty on a terminal); takes precedence over `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /** Defaults to the store the configuration names (createBlobStore), closed with the app. */
  blobs?: BlobStore;
  /**
   * The process's view of the database (db/availability.ts), shared with its worker so that an
   * outage is logged once per process; by default the app's own.
   */
  database?: Availability;
}

const REQUEST_ID = /^[\w.:@-]{1,128}$/;

/** Builds the HTTP API: shared conventions first (src/http), then every feature's routes. */
export async function buildApp({ config, db, logger, loggerInstance, blobs: givenBlobs, database: givenDatabase }: AppDeps): Promise<App> {
  const app = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: logger ?? { level: config.logLevel } }),
    // An incoming X-Request-Id is kept when it is sane, so callers can trace a request end to end.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : newId('request');
    },
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // req.ip (the developer program's per-address limit) from X-Forwarded-For only behind a trusted proxy.
    trustProxy: typeof config.developerProgram.trustProxy === 'number'
      ? ((hops: number) => (_address: string, hop: number) => hop < hops)(config.developerProgram.trustProxy)
      : config.developerProgram.trustProxy ?? false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Errors raised before routing (an undecodable URL) get the same problem+json as the rest.
    frameworkErrors: (err, req, reply) => sendProblem(req, reply, toApiError(err)),
    // Requests Node refuses before Fastify (headers too large, bad HTTP): problem+json and close.
    clientErrorHandler: answerClientError,
    // While closing, registerDraining answers a problem+json 503 instead of Fastify's plain one.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  registerDraining(app);

  // JSON bodies; an empty body on a POST action (e.g. /archive) is simply no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Fastify parses text/plain by default; the API takes JSON (and multipart), so text is a 415.
  app.removeContentTypeParser('text/plain');
  // Read as bytes so that invalid UTF-8 is a 400 rather than U+FFFD; NUL and lone surrogates are 400s too.
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'buffer' }, (req, bytes, done) => {
    let text: string;
    try {
      text = decodeUtf8(bytes as Buffer, 'The body');
    } catch (err) {
      return done(err as Error, undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    parseJson(req, text, (err, body) => (err ? done(err, undefined) : done(unsafeTextError(body, 'body'), body)));
  });

  // multipart/form-data uploads are read as streams by the routes that take them (limits set there).
  await app.register(multipart, { throwFileSizeLimit: true });
  registerValidation(app);
  const database = givenDatabase ?? new Availability({ name: 'database', log: app.log, probe: () => sql`select 1`.execute(db) });
  if (!givenDatabase) app.addHook('onClose', async () => database.stop());
  const blobs = givenBlobs ?? await createBlobStore(config, db);
  if (!givenBlobs) app.addHook('onClose', async () => blobs.close());
  app.decorate('blobs', blobs);
  const storage = new Availability({ name: 'blob store', log: app.log, probe: storeProbe(blobs) });
  app.addHook('onClose', async () => storage.stop());
  // Unknown GET paths outside /v1 are the web app's client routes (index.html), once it is registered below.
  let web: WebApp | undefined;
  registerErrorHandling(app, { database, storage }, (req, reply) => web?.fallback(req, reply) ?? false);
  // While the database is known to be down, API calls answer 503 at once instead of each waiting
  // for a connection to fail (a host that does not answer costs the connect timeout every time).
  app.addHook('onRequest', async (req) => {
    if (database.isDown && req.routeOptions.url?.startsWith('/v1/') && req.routeOptions.config.auth !== false) throw databaseUnavailable();
  });
  await registerOpenApi(app, config.publicUrl);
  registerMetrics(app);

  const authenticator = new ApiKeyAuthenticator(db);
  const sessionAuth = new SessionAuthenticator(db);
  registerAuth(app, authenticator, sessionAuth);
  const rateLimiter = new RateLimiter(db, config.rateLimitPerMinute);
  registerRateLimit(app, rateLimiter);
  registerIdempotency(app, db);
  registerPageLinks(app, config.publicUrl);
  registerEtags(app);

  app.get('/healthz', { config: { auth: false }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  // For load balancers: 503 takes the process out of rotation while the database is unreachable
  // (the probe's failures are logged through the availability tracker, not one line per poll).
  app.get('/readyz', { config: { auth: false }, schema: { hide: true } }, async () => {
    if (await database.check()) return { status: 'ok' };
    throw new ApiError(503, 'service_unavailable', 'Service unavailable', 'The database is not reachable.', {},
      { 'retry-after': String(OUTAGE_RETRY_AFTER_SECONDS) });
  });

  web = await registerWebApp(app, config);

  const eventLog = new EventLog();
  const workspaces = new WorkspacesService(db, eventLog);
  // Sign-in: failures counted per e-mail and per client address in 15-minute windows shared
  // through PostgreSQL; reset requests likewise (at most 5 mails per address and window).
  const signInWindow = 15 * 60_000;
  const signInLimiters = {
    perEmail: new RateLimiter(db, config.signInFailures.perEmail, signInWindow, 1_000, 'signin'),
    perAddress: new RateLimiter(db, config.signInFailures.perAddress, signInWindow, 1_000, 'signin'),
  };
  app.decorate('signInLimiters', signInLimiters);
  const resetLimiter = new RateLimiter(db, 5, signInWindow, 1_000, 'signin');
  const mailer = createMailer(config);
  app.addHook('onClose', async () => {
    await Promise.all([signInLimiters.perEmail.stop(), signInLimiters.perAddress.stop(), resetLimiter.stop(), sessionAuth.usage.stop()]);
    mailer?.close();
  });
  const passwordTokens = new PasswordTokens(db, { publicUrl: config.publicUrl, mailer, sessions: sessionAuth, resetLimiter, log: app.log, events: eventLog });
  const users = new UsersService(db, { keys: authenticator, sessions: sessionAuth }, eventLog, passwordTokens);
  const apiKeys = new ApiKeysService(db, authenticator);
  const photos = new PhotosService(db, eventLog, blobs, config);
  const projects = new ProjectsService(db, eventLog, photos.sign);
  const events = new EventsService(db);
  const webhooks = new WebhooksService(db, {
    events: eventLog, allowPrivate: parseAllowList(config.webhookAllowPrivate), maxEndpoints: config.webhookEndpointsPerWorkspace,
  });

  workspaceRoutes(app, workspaces);
  userRoutes(app, users);
  sessionRoutes(app, new SessionsService(db, sessionAuth, signInLimiters), passwordTokens, config.publicUrl);
  apiKeyRoutes(app, apiKeys);
  projectRoutes(app, projects);
  webhookRoutes(app, webhooks);
  eventRoutes(app, events);
  const files = new FilesService(blobs);
  fileRoutes(app, files);
  photoRoutes(app, photos, new PhotoIntake(blobs, config));
  const tags = new TagsService(db, eventLog);
  tagRoutes(app, tags, projects, photos);
  notificationRoutes(app, new NotificationsService(db));
  const documents = new DocumentsService(db, eventLog, blobs, files, config);
  documentRoutes(app, documents);
  const reports = new ReportsService(db, blobs, files, config);
  reportRoutes(app, reports);
  const videos = new VideosService(db, eventLog, blobs, config);
  videoRoutes(app, videos, new VideoIntake(blobs, config));
  const comments = new CommentsService(db, eventLog, new Notifier(eventLog));
  commentRoutes(app, comments);
  const tasks = new TasksService(db, eventLog, new Notifier(eventLog));
  taskRoutes(app, tasks);
  exportRoutes(app, new ExportsService(db, blobs, files, config));
  const shareTokens = new ShareTokens(() => loadUrlSigningSecret(db, config.urlSigningSecret));
  shareLinkRoutes(app, new ShareLinksService(db, eventLog, shareTokens, config.publicUrl));
  const sharePageLimiter = new RateLimiter(db, config.sharePageViewsPerMinute, 60_000, 1_000, 'share');
  sharePageRoutes(app, new SharePages(db, blobs, config), signedImageSources(config), sharePageLimiter);
  app.addHook('onClose', async () => sharePageLimiter.stop());
  syncRoutes(app, new SyncService(db, {
    project: (actor, ids) => projects.viewsOf(actor, ids),
    photo: (actor, ids) => photos.viewsOf(actor, ids),
    video: (actor, ids) => videos.viewsOf(actor, ids),
    task: (actor, ids) => tasks.viewsOf(actor, ids),
    comment: (actor, ids) => comments.viewsOf(actor, ids),
    document: (actor, ids) => documents.viewsOf(actor, ids),
    report: (actor, ids) => reports.viewsOf(actor, ids),
    tag: (actor, ids) => tags.viewsOf(actor, ids),
    user: (actor, ids) => users.viewsOf(actor, ids),
  }));
  searchRoutes(app, new SearchService(db));

  const applicationLimiter = new RateLimiter(db, config.developerProgram.applicationsPerHour, 3600_000, 1_000, 'app');
  developerApplicationRoutes(app, new DeveloperApplicationsService(db, eventLog), applicationLimiter);
  app.addHook('onClose', async () => applicationLimiter.stop());
  // A database that is down does not stop the API from starting (/readyz says so); the next start syncs.
  const operatorWebhookWarning = await syncOperatorWebhook(db, config)
    .catch((err: unknown) => `could not sync the operator webhook with the configuration: ${(err as Error).message}`);
  if (operatorWebhookWarning) app.log.warn(operatorWebhookWarning);

  app.addHook('onClose', async () => rateLimiter.stop());
  app.decorate('keyUsage', authenticator.usage);
  app.decorate('sessionUsage', sessionAuth.usage);
  app.addHook('onClose', async () => authenticator.usage.stop());
  return app;
}

/** The S3 store answers a HEAD of its bucket; the file store has no outage to recover from. */
function storeProbe(blobs: BlobStore): (() => Promise<unknown>) | undefined {
  const store = blobs as Partial<{ checkBucket(): Promise<void> }>;
  return typeof store.checkBucket === 'function' ? () => store.checkBucket!() : undefined;
}
