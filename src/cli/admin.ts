import { Command, InvalidArgumentError } from 'commander';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { ApiKeysRepository } from '../features/api-keys/api-keys.repository.ts';
import { toApiKeyView } from '../features/api-keys/api-keys.views.ts';
import { UsersRepository } from '../features/users/users.repository.ts';
import { WorkspacesRepository } from '../features/workspaces/workspaces.repository.ts';
import { WorkspacesService } from '../features/workspaces/workspaces.service.ts';
import { isId } from '../ids.ts';
import { migrateAll, type DatabaseLocation } from '../runtime.ts';

type WithDatabase = <T>(config: Config, work: (location: DatabaseLocation) => Promise<T>) => Promise<T>;

class UsageError extends Error {}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const nonEmpty = (what: string, max: number) => (value: string) => {
  const v = value.trim();
  if (!v || v.length > max) throw new InvalidArgumentError(`${what} must be 1 to ${max} characters.`);
  return v;
};
const email = (value: string) => {
  if (!EMAIL.test(value) || value.length > 254) throw new InvalidArgumentError(`"${value}" is not an e-mail address.`);
  return value.trim();
};

/** Operator commands that act on the database directly: no API key needed. */
export function adminCommands(program: Command, getConfig: () => Config, withDatabase: WithDatabase): void {
  const run = <T>(work: (db: ReturnType<typeof openDatabase>['db']) => Promise<T>) =>
    withDatabase(getConfig(), async ({ url }) => {
      await migrateAll(url);
      const handle = openDatabase(url, { max: 2, applicationName: 'jobsite-cli' });
      try {
        return await work(handle.db);
      } finally {
        await handle.close();
      }
    });

  const workspace = program.command('workspace').description('manage workspaces');
  workspace.command('create')
    .description('create a workspace, its first admin user and an admin API key (the key is shown only here)')
    .requiredOption('--name <name>', 'workspace name', nonEmpty('--name', 200))
    .requiredOption('--admin-email <email>', 'e-mail of the first admin', email)
    .option('--json', 'print JSON')
    .action((opts: { name: string; adminEmail: string; json?: boolean }) => run(async (db) => {
      const made = await new WorkspacesService(db).provision({ name: opts.name, adminEmail: opts.adminEmail });
      if (opts.json) return console.log(JSON.stringify(made, null, 2));
      console.log([
        `Workspace  ${made.workspace.id}  ${made.workspace.name}`,
        `Admin      ${made.admin.id}  ${made.admin.email} (@${made.admin.handle})`,
        `API key    ${made.api_key.key}`,
        '',
        'The API key is shown only now: store it somewhere safe. Try it with:',
        `  curl -H "Authorization: Bearer ${made.api_key.key}" ${getConfig().publicUrl}/v1/users/me`,
      ].join('\n'));
    }));

  const keys = program.command('keys').description('manage API keys');
  keys.command('create')
    .description('create an API key for a user (the key is shown only here)')
    .requiredOption('--workspace <id>', 'workspace id (wsp_…)')
    .requiredOption('--user <id-or-email>', 'user id (usr_…) or e-mail')
    .option('--name <name>', 'a name to recognise the key by', nonEmpty('--name', 100), 'CLI key')
    .option('--read-only', 'the key may only read')
    .option('--json', 'print JSON')
    .action((opts: { workspace: string; user: string; name: string; readOnly?: boolean; json?: boolean }) => run(async (db) => {
      if (!isId('workspace', opts.workspace)) throw new UsageError(`"${opts.workspace}" is not a workspace id (wsp_…).`);
      const ws = await new WorkspacesRepository().get(db, opts.workspace);
      if (!ws) throw new UsageError(`No workspace ${opts.workspace}.`);
      const users = new UsersRepository();
      const user = opts.user.includes('@')
        ? await users.getByEmail(db, ws.id, opts.user)
        : await users.get(db, ws.id, opts.user);
      if (!user) throw new UsageError(`No user "${opts.user}" in workspace ${ws.id}.`);
      if (user.status !== 'active') throw new UsageError(`User ${user.id} is deactivated.`);
      const { row, secret } = await new ApiKeysRepository().issue(db, {
        workspaceId: ws.id, userId: user.id, name: opts.name, readOnly: Boolean(opts.readOnly), createdBy: null,
      });
      const view = { ...toApiKeyView(row), key: secret };
      if (opts.json) return console.log(JSON.stringify(view, null, 2));
      console.log([
        `API key    ${secret}`,
        `Id         ${row.id}  for ${user.email} (${user.role}${row.read_only ? ', read-only' : ''})`,
        '',
        'The key is shown only now: store it somewhere safe.',
      ].join('\n'));
    }));
}
