import fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { adminCommands } from './cli/admin.ts';
import { CliError, describeError } from './cli/errors.ts';
import type { Role } from './cli/service.ts';

/*
 * The `jobsite` command. This module stays light: the API, the worker and the database code are
 * loaded only by the command that needs them, so help and argument errors answer at once.
 */

function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function main(argv: string[]): Promise<unknown> {
  let config: Config | undefined;
  const getConfig = () => (config ??= loadConfig());
  const service = (role: Role) => async () => {
    const cfg = getConfig();
    await (await import('./cli/service.ts')).runService(role, cfg);
  };

  const program = new Command('jobsite')
    .description('Jobsite: projects, photos, tasks, documents and reports for field crews, over a REST API.\n' +
      'With no command, runs `start`.')
    .version(version(), '-V, --version')
    .showHelpAfterError()
    .exitOverride();

  program.command('start').description('API and background worker in one process (the default)').action(service('start'));
  program.command('serve').description('API only').action(service('serve'));
  program.command('worker').description('background jobs only').action(service('worker'));
  adminCommands(program, getConfig);

  // Not `isDefault`: that would turn a mistyped command into an argument of `start`.
  return program.parseAsync(argv.length > 2 ? argv : [...argv, 'start']);
}

main(process.argv).catch((err: unknown) => {
  // Commander has already printed its message (usage errors, --help, --version).
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  console.error(`error: ${describeError(err)}`);
  process.exit(err instanceof CliError ? err.exitCode : 1);
});
