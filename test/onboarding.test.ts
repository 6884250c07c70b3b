/**
 * The first hour on the command line: a start on an empty database says what to do next, the CLI
 * in another terminal (another PORT, no JOBSITE_PUBLIC_URL) shows the running server's address,
 * and says which address it assumed when no server runs; logs are readable lines when asked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cleanUp, cliEnv, runCli, Service, tempDataDir } from './cli-process.ts';

describe('onboarding on the command line', () => {
  const dirs: string[] = [];
  let dataDir: string;

  before(async () => {
    dataDir = await tempDataDir();
    dirs.push(dataDir);
  });
  after(() => cleanUp(dirs));

  it('hints at the first workspace, shows the running server\'s address to the CLI, and the assumed one without a server', async () => {
    const service = await Service.start('start', cliEnv({ JOBSITE_DATA_DIR: dataDir }), 90_000);
    const hint = await service.waitFor(/^No workspace yet/);
    assert.match(hint, /workspace create --name/);
    assert.ok(hint.includes(`${service.url}/docs`), hint);

    // "Another terminal": PORT says 3000, the server listens on a port chosen at start.
    const created = await runCli(['workspace', 'create', '--name', 'Acme Builders', '--admin-email', 'owner@acme.test'],
      cliEnv({ JOBSITE_DATA_DIR: dataDir, PORT: '3000' }));
    assert.equal(created.code, 0, created.stderr);
    const key = /API key\s+(jsk_\S+)/.exec(created.stdout)![1]!;
    assert.ok(created.stdout.includes(`curl -H "Authorization: Bearer ${key}" ${service.url}/v1/users/me`), created.stdout);
    assert.doesNotMatch(created.stdout, /assumed/);
    const me = await fetch(`${service.url}/v1/users/me`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(me.status, 200, 'the printed command works as printed');

    assert.equal((await service.stop()).code, 0);
    const offline = await runCli(['workspace', 'create', '--name', 'Second', '--admin-email', 'two@acme.test'],
      cliEnv({ JOBSITE_DATA_DIR: dataDir, PORT: '3000' }));
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stdout, /http:\/\/127\.0\.0\.1:3000\/v1\/users\/me/);
    assert.match(offline.stdout, /No Jobsite server is running on .*: http:\/\/127\.0\.0\.1:3000 is assumed/);

    // With a workspace, the next start gives no hint; LOG_FORMAT=pretty writes readable lines.
    const again = Service.spawn('serve', cliEnv({ JOBSITE_DATA_DIR: dataDir, LOG_FORMAT: 'pretty' }));
    await again.waitFor(/^\[\d\d:\d\d:\d\d\] INFO: Jobsite API on http:\/\/127\.0\.0\.1:\d+/, 90_000);
    assert.doesNotMatch(again.output, /^\{"level"/m, 'no JSON lines');
    assert.doesNotMatch(again.output, /No workspace yet/);
    assert.equal((await again.stop()).code, 0);
  });
});
