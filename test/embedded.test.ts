/**
 * The embedded PostgreSQL's life cycle, through the real CLI: start, reuse by the CLI and by a
 * second process, clean stop, recovery after a crash, and several processes on one data directory.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cleanUp, cliEnv, gone, http, postgresPid, runCli, Service, tempDataDir } from './cli-process.ts';

interface Made {
  workspace: { id: string };
  admin: { id: string; email: string };
  api_key: { key: string };
}

describe('embedded PostgreSQL life cycle', () => {
  const dirs: string[] = [];
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let made: Made;

  before(async () => {
    dataDir = await tempDataDir();
    dirs.push(dataDir);
    env = cliEnv({ JOBSITE_DATA_DIR: dataDir });
  });
  after(() => cleanUp(dirs));

  it('starts the server on a fresh data directory, shares it with the CLI and a second process, and stops it on SIGTERM', async () => {
    const service = await Service.start('start', env);
    assert.ok(service.messages.some((m) => m.startsWith('Started the embedded PostgreSQL on 127.0.0.1:')), service.output);
    assert.match(service.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(service.url, /:0$/, 'PORT=0 logs the port it really listens on');
    const pgPid = await postgresPid(dataDir);
    assert.ok(pgPid, 'postmaster.pid names a live server');

    assert.equal((await http(service, null, 'GET', '/healthz')).status, 200);
    const openapi = await http(service, null, 'GET', '/v1/openapi.json');
    assert.equal(openapi.json.servers[0].url, service.url, 'links carry the real port');

    // The CLI reuses the running server.
    const created = await runCli(['workspace', 'create', '--name', 'Acme Builders', '--admin-email', 'Boss@Acme.test', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    made = JSON.parse(created.stdout) as Made;
    assert.match(made.api_key.key, /^jsk_/);
    const me = await http(service, made.api_key.key, 'GET', '/v1/users/me');
    assert.equal(me.status, 200);
    assert.equal(me.json.id, made.admin.id);

    const [byEmail, byId, migrate] = await Promise.all([
      runCli(['keys', 'create', '--workspace', made.workspace.id, '--user', 'boss@acme.test', '--read-only', '--json'], env),
      runCli(['keys', 'create', '--workspace', made.workspace.id, '--user', made.admin.id, '--name', 'Laptop'], env),
      runCli(['migrate'], env),
    ]);
    assert.equal(byEmail.code, 0, byEmail.stderr);
    const readOnly = JSON.parse(byEmail.stdout) as { key: string; read_only: boolean; user_id: string; name: string };
    assert.equal(readOnly.read_only, true);
    assert.equal(readOnly.user_id, made.admin.id);
    assert.equal(readOnly.name, 'CLI key');
    assert.equal((await http(service, readOnly.key, 'GET', '/v1/users/me')).status, 200);
    const write = await http(service, readOnly.key, 'POST', '/v1/api-keys', { name: 'nope' });
    assert.equal(write.status, 403, 'a read-only key cannot write');

    assert.equal(byId.code, 0, byId.stderr);
    const plainKey = /API key\s+(jsk_\S+)/.exec(byId.stdout)?.[1];
    assert.ok(plainKey, byId.stdout);
    assert.equal((await http(service, plainKey, 'GET', '/v1/users/me')).status, 200);
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.equal(migrate.stdout.trim(), 'The database is up to date.');

    // Names that point nowhere fail clearly, with the server left alone.
    const [noWorkspace, noUser] = await Promise.all([
      runCli(['keys', 'create', '--workspace', 'wsp_01jd0000000000000000000000', '--user', made.admin.id], env),
      runCli(['keys', 'create', '--workspace', made.workspace.id, '--user', 'nobody@acme.test'], env),
    ]);
    assert.equal(noWorkspace.code, 1);
    assert.equal(noWorkspace.stderr.trim(), 'error: No workspace wsp_01jd0000000000000000000000.');
    assert.equal(noUser.code, 1);
    assert.equal(noUser.stderr.trim(), `error: No user "nobody@acme.test" in workspace ${made.workspace.id}.`);

    // A second start on the same data directory and the same HTTP port reuses the database and refuses clearly.
    const port = new URL(service.url).port;
    const second = await runCli(['start'], { ...env, PORT: port });
    assert.equal(second.code, 1, second.stdout);
    assert.match(second.stdout, /Using the embedded PostgreSQL already running/);
    assert.match(second.stdout, new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use`));
    assert.equal(await postgresPid(dataDir), pgPid, 'the failed start left the server running');
    assert.equal((await http(service, made.api_key.key, 'GET', '/v1/users/me')).status, 200);

    const exit = await service.stop('SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null }, service.output);
    assert.ok(await gone(pgPid), 'the embedded PostgreSQL has stopped');
    assert.equal(await postgresPid(dataDir), null);
    assert.deepEqual(service.messages.slice(-2), ['Shutting down (SIGTERM)', 'Stopped']);
  });

  it('recovers from a crash: the next start reuses the server left running, and stops it on SIGINT', async () => {
    const crashed = await Service.start('start', env);
    const pgPid = await postgresPid(dataDir);
    assert.ok(pgPid);
    assert.deepEqual(await crashed.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
    assert.equal(await postgresPid(dataDir), pgPid, 'a crash leaves the server running');

    const next = await Service.start('start', env);
    assert.ok(next.messages.some((m) => m.startsWith('Using the embedded PostgreSQL already running')), next.output);
    const me = await http(next, made.api_key.key, 'GET', '/v1/users/me');
    assert.equal(me.status, 200, 'the data survived the crash');

    // Ctrl-C in a terminal reaches the process directly and again through npm and tsx: the
    // repeated signal must not cut the shutdown short.
    next.child.kill('SIGINT');
    await next.waitFor(/^Shutting down \(SIGINT\)/);
    assert.deepEqual(await next.stop('SIGINT'), { code: 0, signal: null }, next.output);
    assert.deepEqual(next.messages.slice(-2), ['Shutting down (SIGINT)', 'Stopped']);
    assert.ok(await gone(pgPid));
    assert.equal(await postgresPid(dataDir), null);
  });

  it('shuts down cleanly when the signal comes during start-up', async () => {
    const service = Service.spawn('start', env);
    await service.waitFor(/^Started the embedded PostgreSQL/);
    const pgPid = await postgresPid(dataDir);
    assert.ok(pgPid);
    assert.deepEqual(await service.stop('SIGTERM'), { code: 0, signal: null }, service.output);
    assert.ok(service.messages.includes('Shutting down (SIGTERM)'), service.output);
    assert.ok(await gone(pgPid), 'the server started for this run is stopped');
  });

  it('keeps the server while any process uses it: a worker outlives the API it was started with', async () => {
    const [api, worker] = await Promise.all([Service.start('serve', env), Service.start('worker', env)]);
    const joined = (s: Service) => s.messages.some((m) => m.startsWith('Using the embedded PostgreSQL already running'));
    assert.ok(joined(api) !== joined(worker), 'one started the server, the other joined it');
    assert.ok(!worker.messages.some((m) => m.startsWith('Jobsite API on')), 'a worker serves no HTTP');
    const pgPid = await postgresPid(dataDir);
    assert.ok(pgPid);

    assert.deepEqual(await api.stop('SIGTERM'), { code: 0, signal: null }, api.output);
    assert.equal(await postgresPid(dataDir), pgPid, 'the worker still uses the server');
    const cli = await runCli(['migrate'], env);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(await postgresPid(dataDir), pgPid);

    assert.deepEqual(await worker.stop('SIGTERM'), { code: 0, signal: null }, worker.output);
    assert.ok(await gone(pgPid));
  });

  it('runs two CLI commands at once on a cold data directory: both succeed and nothing is left running', async () => {
    const cold = await tempDataDir();
    dirs.push(cold);
    const coldEnv = cliEnv({ JOBSITE_DATA_DIR: cold });
    const [a, b] = await Promise.all([
      runCli(['workspace', 'create', '--name', 'A', '--admin-email', 'a@a.test', '--json'], coldEnv),
      runCli(['workspace', 'create', '--name', 'B', '--admin-email', 'b@b.test', '--json'], coldEnv),
    ]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(await postgresPid(cold), null, 'the last one out stopped the server');
    await assert.rejects(fs.access(path.join(cold, 'postgres', 'pgdata', 'postmaster.pid')));

    // Both workspaces were made, in one database: a later command (starting the server again) finds them.
    const wsA = (JSON.parse(a.stdout) as Made).workspace.id;
    const wsB = (JSON.parse(b.stdout) as Made).workspace.id;
    const [keyA, keyB] = await Promise.all([
      runCli(['keys', 'create', '--workspace', wsA, '--user', 'a@a.test', '--json'], coldEnv),
      runCli(['keys', 'create', '--workspace', wsB, '--user', 'b@b.test', '--json'], coldEnv),
    ]);
    assert.equal(keyA.code, 0, keyA.stderr);
    assert.equal(keyB.code, 0, keyB.stderr);
    assert.equal(await postgresPid(cold), null);
  });
});
