/**
 * The command line, run as a real process: help, argument and configuration errors (each one
 * clear, on stderr, with a non-zero exit), the `bin/jobsite.js` launcher, and every command
 * against an external PostgreSQL named by DATABASE_URL (a scratch database on the test run's
 * server). The embedded server's life cycle is in embedded.test.ts.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { cleanUp, cliEnv, http, runCli, Service, tempDataDir, type CliResult } from './cli-process.ts';
import { databaseUrl } from './db-url.ts';

const WSP = 'wsp_01jd0000000000000000000000';
const USR = 'usr_01jd0000000000000000000000';

/** Exactly `message` as the first line of stderr, once, nothing on stdout, exit code 2. */
function assertUsageError(result: CliResult, message: string, args: string[]): void {
  const what = `jobsite ${args.join(' ')}`;
  assert.equal(result.code, 2, `${what}: exit code\n${result.stderr}`);
  assert.equal(result.stdout, '', `${what}: stdout`);
  assert.equal(result.stderr.split('\n')[0], message, `${what}: message`);
  assert.equal(result.stderr.split(message).length - 1, 1, `${what}: the message is printed once`);
  assert.match(result.stderr, /\nUsage: jobsite/, `${what}: usage follows the message`);
}

describe('command line', () => {
  const dirs: string[] = [];
  let scratch: string;
  let missingDataDir: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    const dir = await tempDataDir();
    dirs.push(dir);
    // Commands that must not touch any database point here; it must still not exist at the end.
    missingDataDir = path.join(dir, 'never-created');
    env = cliEnv({ JOBSITE_DATA_DIR: missingDataDir });
  });
  after(async () => {
    await cleanUp(dirs);
  });

  it('prints help and the version, with exit code 0', async () => {
    const [help, version, sub, launcher, launcherVersion] = await Promise.all([
      runCli(['--help'], env),
      runCli(['--version'], env),
      runCli(['keys', 'create', '--help'], env),
      runCli(['--help'], env, { entry: 'bin/jobsite.js' }),
      runCli(['-V'], env, { entry: 'bin/jobsite.js' }),
    ]);
    for (const r of [help, version, sub, launcher, launcherVersion]) assert.equal(r.code, 0, r.stderr);
    for (const command of ['start', 'serve', 'worker', 'migrate', 'workspace', 'keys', 'users']) {
      assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`), `--help lists ${command}`);
    }
    const pkg = JSON.parse(await fs.readFile('package.json', 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), pkg.version);
    assert.match(sub.stdout, /--workspace <id>[\s\S]*--user <id-or-email>[\s\S]*--read-only/);
    assert.equal(launcher.stdout, help.stdout, 'bin/jobsite.js runs the same CLI');
    assert.equal(launcherVersion.stdout.trim(), pkg.version);
  });

  it('rejects bad arguments with one clear message on stderr and exit code 2, before touching any database', async () => {
    const cases: Array<[string[], string]> = [
      [['deploy'], "error: unknown command 'deploy'"],
      [['start', 'now'], "error: too many arguments for 'start'. Expected 0 arguments but got 1."],
      [['--verbose'], "error: unknown option '--verbose'"],
      [['migrate', '--force'], "error: unknown option '--force'"],
      [['workspace', 'create', '--admin-email', 'a@b.test'], "error: required option '--name <name>' not specified"],
      [['workspace', 'create', '--name', 'Acme'], "error: required option '--admin-email <email>' not specified"],
      [['workspace', 'create', '--name', '  ', '--admin-email', 'a@b.test'],
        "error: option '--name <name>' argument '  ' is invalid. --name must be 1 to 200 characters."],
      [['workspace', 'create', '--name', 'Acme', '--admin-email', 'not-an-email'],
        "error: option '--admin-email <email>' argument 'not-an-email' is invalid. \"not-an-email\" is not an e-mail address."],
      [['workspace', 'create', '--name', 'Acme', '--admin-email'], "error: option '--admin-email <email>' argument missing"],
      [['workspace', 'delete'], "error: unknown command 'delete'"],
      [['keys', 'create', '--user', USR], "error: required option '--workspace <id>' not specified"],
      [['keys', 'create', '--workspace', WSP], "error: required option '--user <id-or-email>' not specified"],
      [['keys', 'create', '--workspace', 'acme', '--user', USR],
        "error: option '--workspace <id>' argument 'acme' is invalid. \"acme\" is not a workspace id (wsp_ followed by 26 characters)."],
      [['keys', 'create', '--workspace', USR, '--user', USR],
        `error: option '--workspace <id>' argument '${USR}' is invalid. "${USR}" is not a workspace id (wsp_ followed by 26 characters).`],
      [['keys', 'create', '--workspace', WSP, '--user', 'usr_123'],
        "error: option '--user <id-or-email>' argument 'usr_123' is invalid. \"usr_123\" is not a user id (usr_ followed by 26 characters)."],
      [['keys', 'create', '--workspace', WSP, '--user', 'bob@'],
        "error: option '--user <id-or-email>' argument 'bob@' is invalid. \"bob@\" is not an e-mail address."],
      [['keys', 'create', '--workspace', WSP, '--user', USR, '--name', ''],
        "error: option '--name <name>' argument '' is invalid. --name must be 1 to 100 characters."],
      [['keys', 'create', '--workspace', WSP, '--user', USR, '--read-only=yes'], "error: unknown option '--read-only=yes'"],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, env)));
    cases.forEach(([args, message], i) => assertUsageError(results[i]!, message, args));
    await assert.rejects(fs.access(missingDataDir), 'no data directory was made');
  });

  it('shows the group help on stderr, exit code 2, for a command group without its subcommand', async () => {
    const result = await runCli(['keys'], env);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^Usage: jobsite keys \[options\] \[command\]/);
  });

  it('reports every bad configuration value at once, with exit code 1', async () => {
    const bad = { ...env, PORT: 'abc', LOG_LEVEL: 'loud', JOBSITE_RATE_LIMIT: '0' };
    // Each bad value is named once, in one message (the wording of the ranges belongs to config.ts).
    const expected = /^Invalid configuration:\n  - PORT must be an integer between 0 and 65535 \(got "abc"\)\n  - JOBSITE_RATE_LIMIT must be .*\(got "0"\)\n  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent\n$/;
    const results = await Promise.all([
      runCli([], bad),
      runCli(['start'], bad),
      runCli(['worker'], bad),
      runCli(['migrate'], bad),
      runCli(['workspace', 'create', '--name', 'Acme', '--admin-email', 'a@b.test'], bad),
      runCli([], bad, { entry: 'bin/jobsite.js' }),
    ]);
    for (const r of results) {
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, expected);
      assert.equal(r.stdout, '');
    }
    const url = await runCli(['migrate'], { ...env, DATABASE_URL: 'mysql://db.example/jobsite' });
    assert.equal(url.code, 1);
    assert.equal(url.stderr, 'Invalid configuration:\n  - DATABASE_URL must start with postgres:// or postgresql:// (got "mysql:")\n');
    await assert.rejects(fs.access(missingDataDir), 'no data directory was made');
  });

  it('fails clearly, with exit code 1, when DATABASE_URL names a server that does not answer', async () => {
    const down = { ...env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/jobsite' };
    const [migrate, start] = await Promise.all([runCli(['migrate'], down), runCli(['start'], down)]);
    assert.equal(migrate.code, 1);
    assert.equal(migrate.stderr, 'error: connect ECONNREFUSED 127.0.0.1:1\n');
    assert.equal(start.code, 1);
    assert.match(start.stdout, /"msg":"Start-up failed: connect ECONNREFUSED 127\.0\.0\.1:1"/);
  });

  describe('with DATABASE_URL', () => {
    let admin: pg.Client;
    let database: string;
    let dbEnv: NodeJS.ProcessEnv;

    before(async () => {
      const serverUrl = process.env.JOBSITE_TEST_SERVER_URL;
      if (!serverUrl) throw new Error('Run tests with `npm test` (test/run.ts prepares the database server).');
      admin = new pg.Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
      await admin.connect();
      database = `jobsite_cli_${crypto.randomBytes(5).toString('hex')}`;
      await admin.query(`create database ${database}`); // empty: the CLI migrates it
      dbEnv = { ...env, DATABASE_URL: databaseUrl(serverUrl, database) };
    });
    after(async () => {
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    });

    it('migrates, provisions, issues keys and serves on that server, and stops with exit code 0', async () => {
      const first = await runCli(['migrate'], dbEnv);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^Applied: 001_foundation\.sql/);
      const again = await runCli(['migrate'], dbEnv);
      assert.equal(again.stdout, 'The database is up to date.\n');

      const created = await runCli(['workspace', 'create', '--name', '  Riverside Builders ', '--admin-email', 'owner@riverside.test'], { ...dbEnv, PORT: '4321' });
      assert.equal(created.code, 0, created.stderr);
      const key = /^API key\s+(jsk_\S+)$/m.exec(created.stdout)?.[1];
      const workspaceId = /^Workspace\s+(wsp_\w+)\s+Riverside Builders$/m.exec(created.stdout)?.[1];
      assert.ok(key && workspaceId, created.stdout);
      assert.match(created.stdout, /curl -H "Authorization: Bearer jsk_\S+" http:\/\/127\.0\.0\.1:4321\/v1\/users\/me/);

      const service = await Service.start('start', dbEnv);
      assert.ok(!service.messages.some((m) => /embedded PostgreSQL/.test(m)), 'no embedded server with DATABASE_URL');
      assert.match(service.url, /^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
      const me = await http(service, key, 'GET', '/v1/users/me');
      assert.equal(me.status, 200);
      assert.equal(me.json.email, 'owner@riverside.test');
      const ws = await http(service, key, 'GET', '/v1/workspace');
      assert.equal(ws.json.name, 'Riverside Builders', 'the name is trimmed');

      // The admin's "Sign in" link: an invitation to choose a password, then a session for the web app.
      const signIn = /^Sign in\s+(http:\/\/127\.0\.0\.1:4321\/invite\/(\S+))$/m.exec(created.stdout);
      assert.ok(signIn, created.stdout);
      assert.match(created.stdout, /open the Sign in link \(valid until \d{4}-.+\) and choose a password\.$/m);
      const token = signIn[2]!;
      const invitation = await http(service, null, 'GET', `/v1/invitations/${token}`);
      assert.equal(invitation.status, 200);
      assert.equal(invitation.json.email, 'owner@riverside.test');
      assert.equal(invitation.json.workspace.name, 'Riverside Builders');
      assert.equal((await http(service, null, 'POST', `/v1/invitations/${token}`, { password: 'a long enough password' })).status, 201);
      const session = await http(service, null, 'POST', '/v1/sessions', { email: 'owner@riverside.test', password: 'a long enough password' });
      assert.equal(session.status, 201);
      assert.equal(session.json.user.id, me.json.id);
      assert.equal((await http(service, null, 'GET', `/v1/invitations/${token}`)).json.code, 'token_used', 'the link is single-use');

      // keys create while the server runs; the new key works at once.
      const issued = await runCli(['keys', 'create', '--workspace', workspaceId, '--user', me.json.id, '--name', 'Laptop', '--json'], dbEnv);
      assert.equal(issued.code, 0, issued.stderr);
      const view = JSON.parse(issued.stdout) as { key: string; name: string; read_only: boolean; user_id: string; id: string };
      assert.equal(view.name, 'Laptop');
      assert.equal(view.read_only, false);
      assert.match(view.id, /^key_/);
      assert.equal((await http(service, view.key, 'GET', '/v1/users/me')).json.id, me.json.id);

      // Users that do not exist, or no longer may sign in, get no key.
      const crew = await http(service, key, 'POST', '/v1/users', { email: 'crew@riverside.test', role: 'standard' });
      assert.equal(crew.status, 201);
      assert.equal((await http(service, key, 'DELETE', `/v1/users/${crew.json.id}`)).status < 300, true);
      const [deactivated, otherWorkspace, unknownUser] = await Promise.all([
        runCli(['keys', 'create', '--workspace', workspaceId, '--user', 'crew@riverside.test'], dbEnv),
        runCli(['keys', 'create', '--workspace', WSP, '--user', me.json.id], dbEnv),
        runCli(['keys', 'create', '--workspace', workspaceId, '--user', USR], dbEnv),
      ]);
      assert.equal(deactivated.code, 1);
      assert.equal(deactivated.stderr, `error: User ${crew.json.id} (crew@riverside.test) is deactivated.\n`);
      assert.equal(otherWorkspace.code, 1);
      assert.equal(otherWorkspace.stderr, `error: No workspace ${WSP}.\n`);
      assert.equal(unknownUser.code, 1);
      assert.equal(unknownUser.stderr, `error: No user "${USR}" in workspace ${workspaceId}.\n`);

      assert.deepEqual(await service.stop('SIGTERM'), { code: 0, signal: null }, service.output);
      await assert.rejects(fs.access(missingDataDir), 'DATABASE_URL leaves the data directory alone');
    });
  });
});
