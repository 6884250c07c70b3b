import { Command, InvalidArgumentError } from 'commander';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Config } from '../config.ts';
import { isId } from '../ids.ts';

// The same e-mail check as the API's (ajv-formats, full mode), so the CLI accepts what the API accepts.
const EMAIL = fullFormats.email as RegExp;

const nonEmpty = (what: string, max: number) => (value: string) => {
  const v = value.trim();
  if (!v || v.length > max) throw new InvalidArgumentError(`${what} must be 1 to ${max} characters.`);
  return v;
};
const email = (value: string) => {
  const v = value.trim();
  if (!EMAIL.test(v) || v.length > 254) throw new InvalidArgumentError(`"${value}" is not an e-mail address.`);
  return v;
};
const id = (kind: 'workspace' | 'user', prefix: string) => (value: string) => {
  const v = value.trim();
  if (!isId(kind, v)) throw new InvalidArgumentError(`"${value}" is not a ${kind} id (${prefix}_ followed by 26 characters).`);
  return v;
};
const userRef = (value: string) => (value.includes('@') ? email(value) : id('user', 'usr')(value));

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 7 * 86_400, y: 365 * 86_400 };
/** `--expires-in 90d`: a whole number and a unit (s, m, h, d, w, y), up to 10 years; in seconds. */
export const duration = (value: string): number => {
  const m = /^([1-9]\d{0,9})([smhdwy])$/.exec(value.trim());
  const seconds = m ? Number(m[1]) * UNIT_SECONDS[m[2]!]! : NaN;
  if (!(seconds <= 10 * 365 * 86_400)) {
    throw new InvalidArgumentError('Give a whole number and a unit, up to 10 years: 30m, 12h, 90d, 4w, 1y.');
  }
  return seconds;
};

const ROLES = ['admin', 'manager', 'standard', 'restricted'];
const role = (value: string) => {
  if (!ROLES.includes(value)) throw new InvalidArgumentError(`Must be one of ${ROLES.join(', ')}.`);
  return value as 'admin' | 'manager' | 'standard' | 'restricted';
};

const applicationId = (value: string) => {
  const v = value.trim();
  if (!isId('developerApplication', v)) throw new InvalidArgumentError(`"${value}" is not an application id (app_ followed by 26 characters).`);
  return v;
};
const STATUSES = ['pending', 'approved', 'rejected'];
const applicationStatus = (value: string) => {
  if (!STATUSES.includes(value)) throw new InvalidArgumentError(`Must be one of ${STATUSES.join(', ')}.`);
  return value as 'pending' | 'approved' | 'rejected';
};
const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'];
const deliveryStatus = (value: string) => {
  if (!DELIVERY_STATUSES.includes(value)) throw new InvalidArgumentError(`Must be one of ${DELIVERY_STATUSES.join(', ')}.`);
  return value as 'pending' | 'succeeded' | 'failed';
};
const limit = (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1000) throw new InvalidArgumentError('Must be a whole number from 1 to 1000.');
  return n;
};

const actions = () => import('./admin.actions.ts');
const review = () => import('./applications.actions.ts');

/**
 * Operator commands that act on the database directly: no API key needed. Arguments are checked
 * here, before any database is touched; the work itself is loaded only when a command runs.
 */
export function adminCommands(program: Command, getConfig: () => Config): void {
  program.command('migrate').description('apply database migrations and exit')
    .action(async () => {
      const config = getConfig();
      await (await actions()).migrateDatabase(config);
    });

  const workspace = program.command('workspace').description('manage workspaces');
  workspace.command('create')
    .description('create a workspace, its first admin user and an admin API key (the key is shown only here)')
    .requiredOption('--name <name>', 'workspace name', nonEmpty('--name', 200))
    .requiredOption('--admin-email <email>', 'e-mail of the first admin', email)
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; adminEmail: string; json?: boolean }) => {
      const config = getConfig();
      await (await actions()).createWorkspace(config, opts);
    });

  const keys = program.command('keys').description('manage API keys');
  keys.command('create')
    .description('create an API key for a user (the key is shown only here)')
    .requiredOption('--workspace <id>', 'workspace id (wsp_…)', id('workspace', 'wsp'))
    .requiredOption('--user <id-or-email>', 'user id (usr_…) or e-mail', userRef)
    .option('--name <name>', 'a name to recognise the key by', nonEmpty('--name', 100), 'CLI key')
    .option('--read-only', 'the key may only read')
    .option('--expires-in <duration>', 'the key stops working after this long: 30m, 12h, 90d, 4w, 1y (default: never)', duration)
    .option('--json', 'print JSON')
    .action(async (opts: { workspace: string; user: string; name: string; readOnly?: boolean; expiresIn?: number; json?: boolean }) => {
      const config = getConfig();
      await (await actions()).createKey(config, opts);
    });

  const users = program.command('users').description('manage the people of a workspace');
  users.command('invite')
    .description('add a user (or take one who has no password yet) and print a link to choose their password ' +
      '(single use, 72 hours; also e-mailed with JOBSITE_SMTP_URL). Earlier invitations of that user stop working')
    .requiredOption('--workspace <id>', 'workspace id (wsp_…)', id('workspace', 'wsp'))
    .requiredOption('--email <email>', 'their e-mail address', email)
    .option('--role <role>', 'admin, manager, standard or restricted (for a new user)', role, 'standard')
    .option('--json', 'print JSON')
    .action(async (opts: { workspace: string; email: string; role: 'admin' | 'manager' | 'standard' | 'restricted'; json?: boolean }) => {
      await (await actions()).inviteUser(getConfig(), opts);
    });

  const applications = program.command('applications').description('review developer program applications (docs/developer-program.md)');
  applications.command('list')
    .description('list applications, newest first')
    .option('--status <status>', 'only pending, approved or rejected ones', applicationStatus)
    .option('--limit <n>', 'at most this many (1..1000)', limit, 100)
    .option('--json', 'print JSON')
    .action(async (opts: { status?: 'pending' | 'approved' | 'rejected'; limit: number; json?: boolean }) => {
      await (await review()).listApplications(getConfig(), opts);
    });
  applications.command('show')
    .description('show one application in full')
    .argument('<id>', 'application id (app_…)', applicationId)
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await (await review()).showApplication(getConfig(), id, opts);
    });
  applications.command('approve')
    .description('approve: create the workspace, the applicant as its admin and an API key, and send the key ' +
      '(by e-mail with JOBSITE_SMTP_URL, else printed here once). Exit code 3: approved, but the e-mail failed (see resend-key)')
    .argument('<id>', 'application id (app_…)', applicationId)
    .option('--workspace-name <name>', 'name of the new workspace (default: the company name)', nonEmpty('--workspace-name', 200))
    .option('--key-expires-in <duration>', 'the key stops working after this long: 30m, 12h, 90d, 4w, 1y (default: never)', duration)
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { workspaceName?: string; keyExpiresIn?: number; json?: boolean }) => {
      await (await review()).approveApplication(getConfig(), id, opts);
    });
  applications.command('reject')
    .description('reject, and tell the applicant why (by e-mail with JOBSITE_SMTP_URL). Exit code 3: rejected, but the e-mail failed')
    .argument('<id>', 'application id (app_…)', applicationId)
    .requiredOption('--reason <reason>', 'why, in words for the applicant', nonEmpty('--reason', 2000))
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { reason: string; json?: boolean }) => {
      await (await review()).rejectApplication(getConfig(), id, opts);
    });
  applications.command('deliveries')
    .description('list what the operator webhook (JOBSITE_OPERATOR_WEBHOOK_URL) was sent, newest first: ' +
      'status, attempts, the last answer or error, and the next attempt of pending ones')
    .option('--status <status>', 'only pending, succeeded or failed ones', deliveryStatus)
    .option('--limit <n>', 'at most this many (1..1000)', limit, 50)
    .option('--json', 'print JSON (with each delivery\'s latest attempts)')
    .action(async (opts: { status?: 'pending' | 'succeeded' | 'failed'; limit: number; json?: boolean }) => {
      await (await review()).listOperatorDeliveries(getConfig(), opts);
    });
  applications.command('resend-key')
    .description('issue a fresh key for an approved application, revoke the previous one, and send it. Exit code 3: the e-mail failed again')
    .argument('<id>', 'application id (app_…)', applicationId)
    .option('--force', 'also when the previous key was already sent (it stops working)')
    .option('--key-expires-in <duration>', 'the key stops working after this long: 30m, 12h, 90d, 4w, 1y (default: never)', duration)
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { force?: boolean; keyExpiresIn?: number; json?: boolean }) => {
      await (await review()).resendKey(getConfig(), id, opts);
    });
}
