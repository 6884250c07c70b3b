/**
 * PostgreSQL goes away under a running `jobsite start` (API + worker + webhook dispatcher in one
 * process) and comes back. A private cluster that the test stops and starts (test/pg-cluster.ts),
 * the real CLI process, a real webhook receiver. While the database is down: every API call
 * answers 503 database_unavailable with Retry-After, quickly; /healthz 200, /readyz 503; a warning
 * when it goes, then silence. When it is back: the same process serves again, the worker
 * processes a photo, and every event from before and after is delivered exactly as stored.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import pg from 'pg';
import { cleanUp, cliEnv, runCli, Service, tempDataDir } from './cli-process.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { multipart } from './multipart.ts';
import { PgCluster } from './pg-cluster.ts';
import { eventually, Receiver } from './webhook-receiver.ts';

let cluster: PgCluster;
let receiver: Receiver;
let dataDir: string;
let running: Service | undefined;

before(async () => {
  [cluster, receiver, dataDir] = await Promise.all([PgCluster.start(), Receiver.start(), tempDataDir()]);
});

after(async () => {
  if (running && process.exitCode) console.log(logLines(running, 0).map((l) => JSON.stringify(l)).join('\n'));
  await cleanUp([dataDir]);
  await receiver?.close();
  await cluster?.destroy();
});

interface LogLine {
  level: number;
  msg: string;
}

/** The process's log lines from `offset` in its output, without Fastify's per-request access lines. */
function logLines(service: Service, offset: number): LogLine[] {
  return service.output.slice(offset).split('\n').filter(Boolean).map((line) => {
    try {
      const { level, msg } = JSON.parse(line) as LogLine;
      return { level, msg };
    } catch {
      return { level: 60, msg: line }; // anything not from pino (a stack trace on stderr) counts
    }
  }).filter((l) => l.msg !== 'incoming request' && l.msg !== 'request completed');
}

async function timed(url: string, init: RequestInit = {}): Promise<{ res: Response; body: string; ms: number }> {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  return { res, body, ms: performance.now() - started };
}

it('answers 503 during a PostgreSQL outage, logs it once, and recovers by itself without losing an event', async () => {
  const env = cliEnv({ DATABASE_URL: await cluster.createDatabase('jobsite'), JOBSITE_DATA_DIR: dataDir, JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  const service = await Service.start('start', env);
  running = service;
  await service.waitFor(/^Worker running/);
  const created = await runCli(['workspace', 'create', '--name', 'Outage', '--admin-email', 'ops@outage.test'], env);
  assert.equal(created.code, 0, created.stderr);
  const key = /^API key\s+(jsk_\S+)$/m.exec(created.stdout)![1]!;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => timed(`${service.url}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

  const hook = await call('POST', '/v1/webhooks', { url: receiver.url('/hook'), events: ['*'] });
  assert.equal(hook.res.status, 201, hook.body);
  // A second key, never used: its first request must look it up in the database.
  const fresh = await call('POST', '/v1/api-keys', { name: 'fresh' });
  assert.equal(fresh.res.status, 201, fresh.body);
  const freshKey = (JSON.parse(fresh.body) as { key: string }).key;
  const projectIds: string[] = [];
  for (const name of ['Before 1', 'Before 2']) {
    const p = await call('POST', '/v1/projects', { name });
    assert.equal(p.res.status, 201, p.body);
    projectIds.push((JSON.parse(p.body) as { id: string }).id);
  }
  await eventually('the first events to be delivered', () => receiver.at('/hook').length >= 2);

  // The database goes away.
  const mark = service.output.length;
  await cluster.pause('fast');
  const outage: { what: string; status: number; ms: number }[] = [];
  const expect503 = async (what: string, r: { res: Response; body: string; ms: number }) => {
    outage.push({ what, status: r.res.status, ms: Math.round(r.ms) });
    assert.equal(r.res.status, 503, `${what}: ${r.body}`);
    assert.match(r.res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = JSON.parse(r.body) as { code: string; status: number };
    assert.equal(problem.code, 'database_unavailable', what);
    assert.ok(Number(r.res.headers.get('retry-after')) > 0, `${what}: Retry-After`);
    assert.ok(r.ms < 5000, `${what} took ${r.ms} ms`);
  };
  await expect503('GET /v1/projects', await call('GET', '/v1/projects'));
  await expect503('GET /v1/projects/{id}', await call('GET', `/v1/projects/${projectIds[0]}`));
  await expect503('POST /v1/projects', await call('POST', '/v1/projects', { name: 'During' }));
  await expect503('POST with Idempotency-Key', await call('POST', '/v1/projects', { name: 'During' }, { 'idempotency-key': 'k-1' }));
  await expect503('PATCH /v1/projects/{id}', await call('PATCH', `/v1/projects/${projectIds[1]}`, { name: 'Renamed' }));
  await expect503('GET /v1/workspace (a key never used: auth needs the database)',
    await timed(`${service.url}/v1/workspace`, { headers: { authorization: `Bearer ${freshKey}` } }));
  const health = await timed(`${service.url}/healthz`);
  assert.equal(health.res.status, 200);
  const ready = await timed(`${service.url}/readyz`);
  assert.equal(ready.res.status, 503, ready.body);
  outage.push({ what: '/readyz', status: 503, ms: Math.round(ready.ms) });

  // Ten seconds of a load balancer polling /readyz and clients retrying: the log stays quiet.
  const quietFrom = service.output.length;
  const until = Date.now() + 10_000;
  let polls = 0;
  while (Date.now() < until) {
    const [r, a] = await Promise.all([timed(`${service.url}/readyz`), call('GET', '/v1/projects')] as const);
    assert.equal(r.res.status, 503);
    assert.equal(a.res.status, 503, a.body);
    polls++;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const during = logLines(service, quietFrom);
  const wentAway = logLines(service, mark);
  console.log(`outage responses: ${JSON.stringify(outage)}; ${polls} rounds of /readyz + GET in 10 s`);
  console.log(`log lines from the stop: ${wentAway.length} (${JSON.stringify(wentAway)}); in the 10 s window: ${during.length}`);
  assert.ok(during.length <= 1, `at most a line in 10 s, got ${JSON.stringify(during)}`);
  assert.equal(wentAway.filter((l) => /database unreachable/.test(l.msg)).length, 1, JSON.stringify(wentAway));
  assert.ok(wentAway.every((l) => l.level < 50), `no error lines: ${JSON.stringify(wentAway)}`);

  // It comes back: the same process serves again, without a restart.
  const back = performance.now();
  await cluster.resume();
  const recovered = await eventually('the API to answer again', async () => (await call('GET', '/v1/projects')).res.status === 200 && performance.now(), 20_000);
  console.log(`recovered ${Math.round(recovered - back)} ms after the server was started again (pg_ctl start -w included)`);
  const readyAgain = await timed(`${service.url}/readyz`);
  assert.equal(readyAgain.res.status, 200);
  await eventually('the recovery to be logged', () => logLines(service, mark).some((l) => /database reachable again/.test(l.msg)));

  for (const name of ['After 1', 'After 2']) {
    const p = await call('POST', '/v1/projects', { name });
    assert.equal(p.res.status, 201, p.body);
    projectIds.push((JSON.parse(p.body) as { id: string }).id);
  }
  const { payload, headers } = multipart({}, { data: await jpegWithExif() });
  const upload = await fetch(`${service.url}/v1/projects/${projectIds[3]}/photos`, {
    method: 'POST', body: new Uint8Array(payload), headers: { ...headers, authorization: `Bearer ${key}` },
  });
  assert.equal(upload.status, 201, await upload.clone().text());
  const photoId = ((await upload.json()) as { id: string }).id;
  await eventually('the worker to process the photo', async () => {
    const r = await call('GET', `/v1/photos/${photoId}`);
    return (JSON.parse(r.body) as { processing_status: string }).processing_status === 'processed';
  }, 30_000);

  // Every event the database holds (before and after: none was written during) is delivered exactly as stored.
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  // Every event since the endpoint was registered (the workspace's first user.added came before it).
  const { rows: events } = await db.query<{ id: string; event: string; payload: string }>(
    'select id, event, payload::text as payload from events where created_at >= (select min(created_at) from webhook_endpoints) order by id');
  await db.end();
  assert.ok(events.length >= 5, `events: ${events.map((e) => e.event).join(', ')}`);
  assert.ok(events.some((e) => e.event === 'photo.created'));
  assert.ok(!events.some((e) => e.payload.includes('"During"')), 'nothing written during the outage');
  const missing = () => events.filter((e) => !receiver.at('/hook').some((r) => r.headers['webhook-id'] === e.id));
  await eventually('every event to be delivered', () => missing().length === 0, 20_000)
    .catch((err: Error) => assert.fail(`${err.message}: ${missing().map((e) => `${e.event} ${e.id}`).join(', ')}`));
  for (const e of events) {
    const deliveries = receiver.at('/hook').filter((r) => r.headers['webhook-id'] === e.id);
    assert.equal(deliveries[0]!.body, e.payload, `${e.event} ${e.id} delivered as stored`);
  }
  assert.equal(logLines(service, mark).filter((l) => /database reachable again/.test(l.msg)).length, 1);
  previous = { service, key, databaseUrl: env.DATABASE_URL!, projectId: projectIds[0]! };
});

let previous: { service: Service; key: string; databaseUrl: string; projectId: string } | undefined;

it('finishes a job that was running when the database crashed, once it is back', async () => {
  assert.ok(previous, 'runs after the test above, on the same process');
  const { service, key, databaseUrl, projectId } = previous;
  // A photo large enough to be still processing when the server dies (kill -9 style: immediate).
  const { payload, headers } = multipart({}, { data: await jpegWithExif({}, 7000, 5000) });
  const upload = await fetch(`${service.url}/v1/projects/${projectId}/photos`, {
    method: 'POST', body: new Uint8Array(payload), headers: { ...headers, authorization: `Bearer ${key}` },
  });
  assert.equal(upload.status, 201);
  const photoId = ((await upload.json()) as { id: string }).id;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  await eventually('the job to be taken', async () =>
    (await db.query(`select 1 from graphile_worker._private_jobs where locked_at is not null and payload->>'photo_id' = $1`, [photoId])).rowCount);
  await db.end();
  await cluster.pause('immediate');
  // graphile-worker's worker cannot record the job's end and exits; the queue is restarted once
  // the database is back, with that worker's job unlocked (else it would wait 4 h).
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await cluster.resume();
  await eventually('the photo to be processed', async () => {
    const r = await fetch(`${service.url}/v1/photos/${photoId}`, { headers: { authorization: `Bearer ${key}` } });
    return r.status === 200 && ((await r.json()) as { processing_status: string }).processing_status === 'processed';
  }, 30_000);
  const { code } = await service.stop();
  assert.equal(code, 0);
});
