import { Command, CommanderError } from 'commander';
import pino from 'pino';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startWorker } from './jobs/queue.ts';
import { locateDatabase, migrateAll, type DatabaseLocation } from './runtime.ts';
import { adminCommands } from './cli/admin.ts';

type Role = 'start' | 'serve' | 'worker';

/** Runs the API, the worker or both until SIGINT/SIGTERM, then shuts down in order. */
async function runService(role: Role, config: Config): Promise<void> {
  const log = pino({ level: config.logLevel });
  const location = await locateDatabase(config, (m) => log.info(m));
  let closing = false;
  const handle = openDatabase(location.url, { max: 20 });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let runner: Awaited<ReturnType<typeof startWorker>> | undefined;

  const shutdown = async (reason: string, code = 0) => {
    if (closing) return;
    closing = true;
    log.info(`Shutting down (${reason})`);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await app?.close().catch((err) => log.error({ err }, 'closing the API failed'));
    await runner?.stop().catch((err) => log.error({ err }, 'stopping the worker failed'));
    await handle.close().catch(() => undefined);
    await location.release().catch((err) => log.error({ err }, 'stopping the embedded PostgreSQL failed'));
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    const applied = await migrateAll(location.url);
    if (applied.length) log.info(`Applied migrations: ${applied.join(', ')}`);
    if (role !== 'worker') {
      app = await buildApp({ config, db: handle.db });
      await app.listen({ port: config.port, host: config.host });
      log.info(`Jobsite API on ${config.publicUrl} (reference: ${config.publicUrl}/docs)`);
    }
    if (role !== 'serve') {
      runner = await startWorker(location.url, { db: handle.db }, log);
      log.info('Worker running');
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    log.error(e.code === 'EADDRINUSE'
      ? `Port ${config.port} on ${config.host} is already in use (is Jobsite already running?). Set PORT to use another.`
      : `Start-up failed: ${e.message}`);
    await shutdown('start-up failure', 1);
  }
}

async function withDatabase<T>(config: Config, work: (location: DatabaseLocation) => Promise<T>): Promise<T> {
  const location = await locateDatabase(config);
  try {
    return await work(location);
  } finally {
    await location.release();
  }
}

function main(argv: string[]): Promise<unknown> {
  let config: Config | undefined;
  const getConfig = () => (config ??= loadConfig());

  const program = new Command('jobsite')
    .description('Jobsite: projects, photos, tasks, documents and reports for field crews, over a REST API.')
    .showHelpAfterError()
    .exitOverride();

  program.command('start', { isDefault: true }).description('API and background worker in one process (the default)')
    .action(() => runService('start', getConfig()));
  program.command('serve').description('API only').action(() => runService('serve', getConfig()));
  program.command('worker').description('background jobs only').action(() => runService('worker', getConfig()));
  program.command('migrate').description('apply database migrations and exit')
    .action(() => withDatabase(getConfig(), async ({ url }) => {
      const applied = await migrateAll(url);
      console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
    }));

  adminCommands(program, getConfig, withDatabase);
  return program.parseAsync(argv);
}


main(process.argv).catch((err) => {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  console.error(err instanceof ConfigError ? err.message : `Error: ${(err as Error).message}`);
  process.exit(1);
});
