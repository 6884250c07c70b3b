import net from 'node:net';
import pino, { type Logger } from 'pino';
import { buildApp } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { Availability } from '../db/availability.ts';
import { openDatabase, type Db, type DatabaseHandle } from '../db/database.ts';
import type { App } from '../http/types.ts';
import { WebhookDispatcher } from '../features/webhooks/webhooks.dispatcher.ts';
import { startWorker, type QueueWorker } from '../jobs/queue.ts';
import { EventLog } from '../features/events/events.log.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { createBlobStore } from '../storage/create-blob-store.ts';
import { locateDatabase, migrateAll, type DatabaseLocation } from '../runtime.ts';
import { describeError } from './errors.ts';

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
async function listen(config: Config, db: Db, database: Availability): Promise<App> {
  const autoPort = config.port === 0 && !process.env.JOBSITE_PUBLIC_URL;
  for (let attempt = 1; ; attempt++) {
    const cfg = autoPort ? loadConfig({ ...process.env, PORT: String(await freePort(config.host)) }) : config;
    const app = await buildApp({ config: cfg, db, database });
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
 * Runs the API, the worker or both until SIGINT/SIGTERM, then shuts down in order: HTTP, worker,
 * pool, and last the embedded PostgreSQL (which stops only when no other jobsite process uses it).
 * A signal during start-up lets start-up reach a clean point first, then shuts down the same way.
 */
export async function runService(role: Role, config: Config): Promise<void> {
  const log = pino({ level: config.logLevel });
  let location: DatabaseLocation | undefined;
  let handle: DatabaseHandle | undefined;
  let app: App | undefined;
  let runner: QueueWorker | undefined;
  let jobsHandle: DatabaseHandle | undefined;
  const trackers: Availability[] = [];
  let workerBlobs: BlobStore | undefined;
  let dispatcher: WebhookDispatcher | undefined;
  let closing: Promise<void> | undefined;
  let starting: Promise<boolean> = Promise.resolve(true);

  const shutdown = (reason: string, code: number): Promise<void> => closing ??= (async () => {
    log.info(`Shutting down (${reason})`);
    const force = setTimeout(() => {
      log.error('Shutdown took longer than 30 s; exiting anyway');
      process.exit(1);
    }, 30_000);
    force.unref();
    await starting;
    await app?.close().catch((err: unknown) => log.error({ err }, 'closing the API failed'));
    await dispatcher?.stop().catch((err: unknown) => log.error({ err }, 'stopping the webhook dispatcher failed'));
    await runner?.stop().catch((err: unknown) => log.error({ err }, 'stopping the worker failed'));
    await workerBlobs?.close().catch((err: unknown) => log.error({ err }, 'closing the worker\'s blob store failed'));
    for (const tracker of trackers) tracker.stop();
    await jobsHandle?.close().catch(() => undefined);
    await handle?.close().catch(() => undefined);
    await location?.release().catch((err: unknown) => log.error({ err }, 'stopping the embedded PostgreSQL failed'));
    log.info('Stopped');
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
    runner: (r) => { runner = r; },
    jobsHandle: (h) => { jobsHandle = h; },
    availability: (a) => { trackers.push(a); },
    workerBlobs: (b) => { workerBlobs = b; },
    dispatcher: (d) => { dispatcher = d; },
  });
  if (!(await starting)) await shutdown('start-up failure', 1);
}

interface Started {
  location(l: DatabaseLocation): void;
  handle(h: DatabaseHandle): void;
  app(a: App): void;
  runner(r: QueueWorker): void;
  jobsHandle(h: DatabaseHandle): void;
  availability(a: Availability): void;
  workerBlobs(b: BlobStore): void;
  dispatcher(d: WebhookDispatcher): void;
}

/** Brings the pieces up one by one, handing each over as soon as it exists; false on failure. */
async function startUp(role: Role, config: Config, log: Logger, closing: () => boolean, started: Started): Promise<boolean> {
  try {
    const location = await locateDatabase(config, (m) => log.info(m));
    started.location(location);
    if (closing()) return true;
    const applied = await migrateAll(location.url);
    if (applied.length) log.info(`Applied migrations: ${applied.join(', ')}`);
    const handle = openDatabase(location.url, { max: 20 });
    started.handle(handle);
    // One view of the database per process, shared by the API, the worker and the dispatcher:
    // an outage is one warning when it starts and one line when it ends (db/availability.ts).
    const database = new Availability({ name: 'database', log, probe: () => handle.pool.query('select 1') });
    started.availability(database);
    if (closing()) return true;
    if (role !== 'worker') {
      const app = await listen(config, handle.db, database);
      started.app(app);
      const url = listenUrl(app);
      const docs = `${process.env.JOBSITE_PUBLIC_URL ? config.publicUrl : url}/docs`;
      log.info(`Jobsite API on ${url} (reference: ${docs})`);
    }
    if (closing()) return true;
    if (role !== 'serve') {
      // The worker's own blob store (the API's is closed with the API), closed after the worker.
      const blobs = await createBlobStore(config, handle.db);
      started.workerBlobs(blobs);
      // Jobs get a pool of their own: their statements (a report's query, a purge) may run for
      // minutes, longer than the API's statement timeout allows.
      const concurrency = config.media.workerConcurrency;
      const jobsHandle = openDatabase(location.url, { max: concurrency + 2, applicationName: 'jobsite-jobs', statementTimeoutMs: 10 * 60_000 });
      started.jobsHandle(jobsHandle);
      const storage = new Availability({ name: 'blob store', log, probe: 'checkBucket' in blobs ? () => (blobs as { checkBucket(): Promise<void> }).checkBucket() : undefined });
      started.availability(storage);
      started.runner(await startWorker(location.url, { db: jobsHandle.db, blobs, config, events: new EventLog(), log }, log, concurrency, { database, storage }));
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
