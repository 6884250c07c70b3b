import type { Config } from '../config.ts';
import { openDatabase, type Db } from '../db/database.ts';
import { ApiKeysRepository } from '../features/api-keys/api-keys.repository.ts';
import { toApiKeyView } from '../features/api-keys/api-keys.views.ts';
import { EventLog } from '../features/events/events.log.ts';
import { PasswordTokens } from '../features/sessions/password-tokens.service.ts';
import { UsersRepository } from '../features/users/users.repository.ts';
import { toUserView } from '../features/users/users.views.ts';
import { newId } from '../ids.ts';
import { createMailer } from '../mail/mailer.ts';
import { WorkspacesRepository } from '../features/workspaces/workspaces.repository.ts';
import { WorkspacesService } from '../features/workspaces/workspaces.service.ts';
import { locateDatabase, migrateAll } from '../runtime.ts';
import { CliError } from './errors.ts';
import { runningServer } from './server-address.ts';

/**
 * What the operator commands do, loaded only when one runs (so that `--help` and argument errors
 * answer at once). Each works whether or not a server runs on the same data directory: it joins
 * the embedded server, or starts it and stops it again when done.
 */
export async function withDatabase<T>(config: Config, work: (db: Db) => Promise<T>): Promise<T> {
  const location = await locateDatabase(config);
  try {
    await migrateAll(location.url);
    const handle = openDatabase(location.url, { max: 2, applicationName: 'jobsite-cli' });
    try {
      return await work(handle.db);
    } finally {
      await handle.close();
    }
  } finally {
    await location.release();
  }
}

export async function migrateDatabase(config: Config): Promise<void> {
  const location = await locateDatabase(config);
  try {
    const applied = await migrateAll(location.url);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'The database is up to date.');
  } finally {
    await location.release();
  }
}

/**
 * `workspace create`: the workspace, its admin and the admin's first API key, and an invitation
 * link for the admin to choose a password and use the web app (e-mailed too when SMTP is set).
 */
export async function createWorkspace(config: Config, opts: { name: string; adminEmail: string; json?: boolean }): Promise<void> {
  const { url, note } = await apiAddress(config);
  const mailer = createMailer(config);
  try {
    const made = await withDatabase(config, async (db) => {
      const provisioned = await new WorkspacesService(db).provision({ name: opts.name, adminEmail: opts.adminEmail });
      const admin = (await new UsersRepository().getByEmail(db, provisioned.workspace.id, provisioned.admin.email))!;
      const tokens = invitationTokens(db, url, mailer);
      const invitation = await tokens.issueInvitation(db, admin.id);
      return { ...provisioned, ...await tokens.mailInvitation(admin, invitation, provisioned.workspace.name, null) };
    });
    if (opts.json) return console.log(JSON.stringify(made, null, 2));
    console.log([
      `Workspace  ${made.workspace.id}  ${made.workspace.name}`,
      `Admin      ${made.admin.id}  ${made.admin.email} (@${made.admin.handle})`,
      `API key    ${made.api_key.key}`,
      `Sign in    ${made.invite_url}`,
      '',
      'The API key is shown only now: store it somewhere safe. Try it with:',
      `  curl -H "Authorization: Bearer ${made.api_key.key}" ${url}/v1/users/me`,
      `To use the web app, open the Sign in link (valid until ${made.invite_expires_at}) and choose a password${made.invite_emailed ? `; it was also e-mailed to ${made.admin.email}` : ''}.`,
      ...(note ? [note] : []),
    ].join('\n'));
  } finally {
    mailer?.close();
  }
}

function invitationTokens(db: Db, publicUrl: string, mailer: ReturnType<typeof createMailer>): PasswordTokens {
  return new PasswordTokens(db, { publicUrl, mailer, log: { warn: (details, message) => console.error(`Warning: ${message}`, details) } });
}

/**
 * The address to show in hints: JOBSITE_PUBLIC_URL when this command was given one, else the
 * server running on the same data directory (which may listen elsewhere than this shell's PORT
 * says), else the configured address, with a note that it was assumed.
 */
async function apiAddress(config: Config): Promise<{ url: string; note?: string }> {
  if (process.env.JOBSITE_PUBLIC_URL) return { url: config.publicUrl };
  const server = await runningServer(config.dataDir);
  if (server) return { url: server.publicUrl };
  return {
    url: config.publicUrl,
    note: `(No Jobsite server is running on ${config.dataDir}: ${config.publicUrl} is assumed. Start one with \`npm start\`.)`,
  };
}

export async function createKey(
  config: Config,
  opts: { workspace: string; user: string; name: string; readOnly?: boolean; expiresIn?: number; json?: boolean },
): Promise<void> {
  const { row, secret, user } = await withDatabase(config, async (db) => {
    const ws = await new WorkspacesRepository().get(db, opts.workspace);
    if (!ws) throw new CliError(`No workspace ${opts.workspace}.`);
    const users = new UsersRepository();
    const user = opts.user.includes('@')
      ? await users.getByEmail(db, ws.id, opts.user)
      : await users.get(db, ws.id, opts.user);
    if (!user) throw new CliError(`No user "${opts.user}" in workspace ${ws.id}.`);
    if (user.status !== 'active') throw new CliError(`User ${user.id} (${user.email}) is deactivated.`);
    const issued = await new ApiKeysRepository().issue(db, {
      workspaceId: ws.id, userId: user.id, name: opts.name, readOnly: Boolean(opts.readOnly), createdBy: null,
      expiresAt: opts.expiresIn ? new Date(Date.now() + opts.expiresIn * 1000) : null,
    });
    return { ...issued, user };
  });
  if (opts.json) return console.log(JSON.stringify({ ...toApiKeyView(row), key: secret }, null, 2));
  console.log([
    `API key    ${secret}`,
    `Id         ${row.id}  for ${user.email} (${user.role}${row.read_only ? ', read-only' : ''})`,
    ...(row.expires_at ? [`Expires    ${row.expires_at.toISOString()}`] : []),
    '',
    'The key is shown only now: store it somewhere safe.',
  ].join('\n'));
}

/** `users invite`: the same invitation as POST /v1/users makes, for an operator without an API key. */
export async function inviteUser(
  config: Config,
  opts: { workspace: string; email: string; role: 'admin' | 'manager' | 'standard' | 'restricted'; json?: boolean },
): Promise<void> {
  const { url, note } = await apiAddress(config);
  const mailer = createMailer(config);
  try {
    const made = await withDatabase(config, async (db) => {
      const ws = await new WorkspacesRepository().get(db, opts.workspace);
      if (!ws) throw new CliError(`No workspace ${opts.workspace}.`);
      const tokens = invitationTokens(db, url, mailer);
      const users = new UsersRepository();
      const { user, invitation, created } = await db.transaction().execute(async (tx) => {
        let user = await users.getByEmail(tx, ws.id, opts.email);
        if (user?.status === 'deactivated') throw new CliError(`User ${user.id} (${user.email}) is deactivated; reactivate them first (PATCH /v1/users/{id}).`);
        if (user?.password_hash) throw new CliError(`User ${user.id} (${user.email}) already has a password; they can ask for a reset link (POST /v1/password-resets).`);
        const created = !user;
        if (!user) {
          user = await users.insert(tx, {
            id: newId('user'), workspace_id: ws.id, email: opts.email, handle: await users.freeHandle(tx, ws.id, opts.email), role: opts.role,
          });
          await new EventLog().emit(tx, { workspaceId: ws.id, event: 'user.added', projectId: null, data: toUserView(user) });
        }
        return { user, invitation: await tokens.issueInvitation(tx, user.id), created };
      });
      return { user, created, issued: await tokens.mailInvitation(user, invitation, ws.name, null) };
    });
    if (opts.json) return console.log(JSON.stringify({ user: toUserView(made.user), ...made.issued }, null, 2));
    console.log([
      `Invitation ${made.issued.invite_url}`,
      `User       ${made.user.id}  ${made.user.email} (${made.user.role}${made.created ? ', new' : ', no password yet'})`,
      `Expires    ${made.issued.invite_expires_at}`,
      '',
      made.issued.invite_emailed ? `The link was e-mailed to ${made.user.email}.` : 'Give them this link (it was not e-mailed: JOBSITE_SMTP_URL is not set, or the mail failed).',
      ...(note ? [note] : []),
    ].join('\n'));
  } finally {
    mailer?.close();
  }
}
