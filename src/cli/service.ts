import net from 'node:net';
import type { Logger } from 'pino';
import { buildApp } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { Availability } from '../db/availability.ts';
import { openDatabase, type Db, type DatabaseHandle } from '../db/database.ts';
import type { App } from '../http/types.ts';
import { WebhookDispatcher } from '../features/webhooks/webhooks.dispatcher.ts';
import { startWorker, type JobWorker } from '../jobs/worker.ts';
import { EventLog } from '../features/events/events.log.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { createBlobStore } from '../storage/create-blob-store.ts';
import { locateDatabase, migrateAll, type DatabaseLocation } from '../runtime.ts';
import { describeError } from './errors.ts';
import { firstRunHint } from './hints.ts';
import { createLogger } from './logger.ts';
import { recordServerAddress } from './server-address.ts';

export type Role = 'start' | 'serve' | 'worker';

/** A free TCP port on `host` (for PORT=0: the public URL must name the real port before the app is built). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Builds the API and listens. With PORT=0 and no JOBSITE_PUBLIC_URL, the port is chosen first so
 * that links (Link headers, the OpenAPI server URL) carry it; losing that port to a race retries.
 */
async function listen(config: Config, db: Db, log: Logger, database: Availability): Promise<App> {
  const autoPort = config.port === 0 && !process.env.JOBSITE_PUBLIC_URL;
  for (let attempt = 1; ; attempt++) {
    const cfg = autoPort ? loadConfig({ ...process.env, PORT: String(await freePort(config.host)) }) : config;
    const app = await buildApp({ config: cfg, db, loggerInstance: log, database });
    try {
      await app.listen({ port: cfg.port, host: cfg.host });
      return app;
    } catch (err) {
      await app.close().catch(() => undefined);
      if (autoPort && attempt < 3 && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
      throw err;
    }
  }
}

function listenUrl(app: App): string {
  const address = app.server.address() as net.AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * How a stop spends its budget (JOBSITE_SHUTDOWN_TIMEOUT_SECONDS, from the signal to the exit):
 * requests, jobs and webhook sends in flight get all of it but a reserve; at the cutoff, what is
 * still running is cut (HTTP) or handed back to the queue (jobs, deliveries), and the reserve
 * is left for closing the pool and stopping the embedded PostgreSQL.
 */
function shutdownPlan(config: Config): { budgetMs: number; cutoffMs: number } {
  const budgetMs = config.shutdownTimeoutSeconds * 1000;
  return { budgetMs, cutoffMs: budgetMs - Math.min(CLOSE_RESERVE_MS, Math.round(budgetMs * 0.3)) };
}

/** Kept for the pool and the embedded PostgreSQL (whose fast stop takes well under a second). */
const CLOSE_RESERVE_MS = 3000;

/** The longest the pool may take to close once everything that used it has stopped. */
const POOL_CLOSE_MS = 1000;

/**
 * Runs the API, the worker or both until SIGINT/SIGTERM, then shuts down within the budget of
 * shutdownPlan: the API, the webhook dispatcher and the job worker together (each finishing what
 * it has in flight), then the worker's blob store, the pool, and last the embedded PostgreSQL
 * (which stops only when no other jobsite process uses it). A signal during start-up lets
 * start-up reach a clean point first, then shuts down the same way.
 */
export async function runService(role: Role, config: Config): Promise<void> {
  const log = createLogger(config);
  let location: DatabaseLocation | undefined;
  let handle: DatabaseHandle | undefined;
  let app: App | undefined;
  let worker: JobWorker | undefined;
  let jobsHandle: DatabaseHandle | undefined;
  const trackers: Availability[] = [];
  let workerBlobs: BlobStore | undefined;
  let dispatcher: WebhookDispatcher | undefined;
  let forgetAddress: (() => Promise<void>) | undefined;
  let closing: Promise<void> | undefined;
  let starting: Promise<boolean> = Promise.resolve(true);

  const shutdown = (reason: string, code: number): Promise<void> => closing ??= (async () => {
    const signalled = performance.now();
    const { budgetMs, cutoffMs } = shutdownPlan(config);
    log.info({ cutoff_seconds: cutoffMs / 1000, budget_seconds: budgetMs / 1000 }, `Shutting down (${reason})`);
    const force = setTimeout(() => {
      log.error(`Shutdown took longer than ${budgetMs / 1000} s; exiting anyway`);
      process.exit(1);
    }, budgetMs);
    force.unref();
    const cutoff = new AbortController();
    const cutoffTimer = setTimeout(() => cutoff.abort(), cutoffMs);
    await starting;
    for (const tracker of trackers) tracker.stop();
    await Promise.all([
      app && closeApi(app, cutoff.signal, log),
      dispatcher?.stop(cutoff.signal).catch((err: unknown) => log.error({ err }, 'stopping the webhook dispatcher failed')),
      worker?.stop(cutoff.signal).catch((err: unknown) => log.error({ err }, 'stopping the worker failed')),
    ]);
    clearTimeout(cutoffTimer);
    await forgetAddress?.().catch(() => undefined);
    await workerBlobs?.close().catch((err: unknown) => log.error({ err }, 'closing the worker\'s blob store failed'));
    // Work abandoned at the cutoff may still hold a connection: the pools get a moment, not the reserve.
    const pools = Promise.all([jobsHandle, handle].map((h) => h?.close().catch(() => undefined)));
    if (!(await settlesWithin(pools, POOL_CLOSE_MS))) {
      log.warn('Some database connections were still in use; leaving them to the exit');
    }
    await location?.release().catch((err: unknown) => log.error({ err }, 'stopping the embedded PostgreSQL failed'));
    log.info({ shutdown_ms: Math.round(performance.now() - signalled) }, 'Stopped');
    process.exit(code);
  })();
  // `on`, not `once`: wrappers (npm, tsx) forward the signal the terminal already sent to the whole
  // process group, and a second SIGINT must not kill the process half-way through shutting down.
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));

  starting = startUp(role, config, log, () => closing !== undefined, {
    location: (l) => { location = l; },
    handle: (h) => { handle = h; },
    app: (a) => { app = a; },
    worker: (w) => { worker = w; },
    jobsHandle: (h) => { jobsHandle = h; },
    availability: (a) => { trackers.push(a); },
    workerBlobs: (b) => { workerBlobs = b; },
    dispatcher: (d) => { dispatcher = d; },
    address: (forget) => { forgetAddress = forget; },
  });
  if (!(await starting)) await shutdown('start-up failure', 1);
}

/**
 * Closes the API: no new connections, idle ones closed, requests in flight finish with
 * `Connection: close` (src/http/draining.ts); at the cutoff the connections still open are cut.
 */
async function closeApi(app: App, cutoff: AbortSignal, log: Logger): Promise<void> {
  const cut = () => {
    log.warn('Requests still running at the shutdown cutoff; closing their connections');
    app.server.closeAllConnections();
  };
  if (cutoff.aborted) queueMicrotask(cut); // start-up took the drain window
  else cutoff.addEventListener('abort', cut, { once: true });
  try {
    await app.close();
  } catch (err) {
    log.error({ err }, 'closing the API failed');
  } finally {
    cutoff.removeEventListener('abort', cut);
  }
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Started {
  location(l: DatabaseLocation): void;
  handle(h: DatabaseHandle): void;
  app(a: App): void;
  worker(w: JobWorker): void;
  jobsHandle(h: DatabaseHandle): void;
  availability(a: Availability): void;
  workerBlobs(b: BlobStore): void;
  dispatcher(d: WebhookDispatcher): void;
  /** The API's address is recorded for the CLI (cli/server-address.ts); this forgets it. */
  address(forget: () => Promise<void>): void;
}

/** Brings the pieces up one by one, handing each over as soon as it exists; false on failure. */
async function startUp(role: Role, config: Config, log: Logger, closing: () => boolean, started: Started): Promise<boolean> {
  try {
    const location = await locateDatabase(config, (m) => log.info(m));
    started.location(location);
    if (closing()) return true;
    const applied = await migrateAll(location.url);
    if (applied.length) log.info(`Applied migrations: ${applied.join(', ')}`);
    const handle = openDatabase(location.url, { max: 20, prepare: config.databasePrepare });
    started.handle(handle);
    // One view of the database per process, shared by the API, the worker and the dispatcher:
    // an outage is one warning when it starts and one line when it ends (db/availability.ts).
    const database = new Availability({ name: 'database', log, probe: () => handle.pool.query('select 1') });
    started.availability(database);
    if (closing()) return true;
    if (role !== 'worker') {
      const app = await listen(config, handle.db, log, database);
      started.app(app);
      const url = listenUrl(app);
      const publicUrl = process.env.JOBSITE_PUBLIC_URL ? config.publicUrl : url;
      log.info(`Jobsite API on ${url} (reference: ${publicUrl}/docs)`);
      // So that `jobsite workspace create` in another terminal shows this address, not its own PORT's
      // (on one machine, with the embedded database; a server on DATABASE_URL leaves the data directory alone).
      if (location.embedded) {
        started.address(await recordServerAddress(config.dataDir, publicUrl).catch((err: unknown) => {
          log.warn({ err }, `could not record the API's address under ${config.dataDir}`);
          return async () => undefined;
        }));
      }
      const hint = await firstRunHint(handle.db, publicUrl).catch(() => null);
      if (hint) log.info(hint);
    }
    if (closing()) return true;
    if (role !== 'serve') {
      // The worker's own blob store (the API's is closed with the API), closed after the worker.
      const blobs = await createBlobStore(config, handle.db);
      started.workerBlobs(blobs);
      // Jobs get a pool of their own: their statements (a report's query, a purge) may run for
      // minutes, longer than the API's statement timeout allows.
      const concurrency = config.media.workerConcurrency;
      const jobsHandle = openDatabase(location.url, { max: concurrency + 2, applicationName: 'jobsite-jobs', statementTimeoutMs: 10 * 60_000, prepare: config.databasePrepare });
      started.jobsHandle(jobsHandle);
      const storage = new Availability({ name: 'blob store', log, probe: 'checkBucket' in blobs ? () => (blobs as { checkBucket(): Promise<void> }).checkBucket() : undefined });
      started.availability(storage);
      started.worker(await startWorker(location.url, { db: jobsHandle.db, blobs, config, events: new EventLog(), log }, log, concurrency, { database, storage }));
      const dispatcher = new WebhookDispatcher(
        { db: handle.db, connectionString: location.url, config, log, availability: database },
        { leaseSeconds: config.webhookLeaseSeconds },
      );
      started.dispatcher(dispatcher);
      await dispatcher.start();
      // A signal during the worker's start-up: shutdown() is already under way and said so.
      if (!closing()) log.info('Worker running');
    }
    return true;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    log.error(e.code === 'EADDRINUSE'
      ? `Port ${config.port} on ${config.host} is already in use (is Jobsite already running?). Set PORT to use another.`
      : `Start-up failed: ${describeError(err)}`);
    return false;
  }
}
