/**
 * PostgreSQL hangs instead of going away (SIGSTOP: sockets stay open, nothing answers). No API
 * request waits for ever: those on open connections give up after the statement limit, new
 * connections after the connect timeout, and once the outage is known the rest answer at once,
 * each with 503 database_unavailable; /healthz stays 200. When the server resumes, so does the API.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { cleanUp, cliEnv, runCli, Service, tempDataDir } from './cli-process.ts';
import { PgCluster } from './pg-cluster.ts';
import { eventually } from './webhook-receiver.ts';

let cluster: PgCluster;
let dataDir: string;

before(async () => {
  [cluster, dataDir] = await Promise.all([PgCluster.start(), tempDataDir()]);
});

after(async () => {
  await cleanUp([dataDir]);
  await cluster?.destroy();
});

it('answers 503 within 5 s while PostgreSQL hangs, and serves again when it resumes', async () => {
  const env = cliEnv({ DATABASE_URL: await cluster.createDatabase('jobsite'), JOBSITE_DATA_DIR: dataDir });
  const service = await Service.start('start', env);
  const created = await runCli(['workspace', 'create', '--name', 'Hang', '--admin-email', 'ops@hang.test'], env);
  assert.equal(created.code, 0, created.stderr);
  const key = /^API key\s+(jsk_\S+)$/m.exec(created.stdout)![1]!;
  const get = async (path = '/v1/projects') => {
    const started = performance.now();
    const res = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after'), ms: Math.round(performance.now() - started) };
  };
  // Several at once, so that the pool holds open connections when the server freezes.
  for (const r of await Promise.all([get(), get(), get(), get()])) assert.equal(r.status, 200, r.body);

  await cluster.freeze();
  try {
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)).then(() => get());
    const results = await Promise.all([get(), get(), get(), later(1000), later(5000), later(6000)]);
    console.log(`while hung: ${results.map((r) => `${r.status} in ${r.ms} ms`).join(', ')}`);
    for (const r of results) {
      assert.equal(r.status, 503, r.body);
      assert.equal((JSON.parse(r.body) as { code: string }).code, 'database_unavailable');
      assert.ok(Number(r.retryAfter) > 0);
      assert.ok(r.ms < 5000, `answered in ${r.ms} ms`);
    }
    // Once the outage is known, callers are not kept waiting at all.
    assert.ok(results.slice(4).every((r) => r.ms < 1000), JSON.stringify(results.map((r) => r.ms)));
    assert.equal((await get('/healthz')).status, 200);
  } finally {
    await cluster.thaw();
  }
  const resumed = performance.now();
  await eventually('the API to answer again', async () => (await get()).status === 200, 20_000);
  console.log(`serving again ${Math.round(performance.now() - resumed)} ms after the server resumed`);
  assert.equal((await service.stop()).code, 0);
});
