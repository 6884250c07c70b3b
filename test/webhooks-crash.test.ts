/**
 * A worker killed in the middle of deliveries (kill -9) loses none: once their lease runs out,
 * another worker sends them again, and every delivery queued behind them goes out exactly once.
 * Real `jobsite worker` processes on the test's database; a real receiver on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { EventLog } from '../src/features/events/events.log.ts';
import { cleanUp, cliEnv, Service } from './cli-process.ts';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { eventually, Receiver } from './webhook-receiver.ts';

let t: TestContext;
let receiver: Receiver;

before(async () => {
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  receiver = await Receiver.start();
});

after(async () => {
  await cleanUp([]);
  await receiver.close();
  await t.close();
});

const workerEnv = () => cliEnv({
  DATABASE_URL: t.url,
  JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
  // a crashed worker's deliveries come back after 2 s instead of 30
  JOBSITE_WEBHOOK_LEASE_SECONDS: '2',
  LOG_LEVEL: 'info',
});

it('a worker killed mid-delivery loses nothing: in-flight deliveries are sent again, queued ones exactly once', async () => {
  const ws = await newWorkspace(t);
  const path = '/crash';
  const created = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: receiver.url(path), events: ['project.*'] });
  assert.equal(created.statusCode, 201, created.body);
  const endpointId = created.json().id as string;

  // Until the crash the receiver accepts every request and never answers.
  let answering = false;
  receiver.on(path, (_req, res) => {
    if (answering) res.writeHead(204).end();
  });

  const first = await Service.start('worker', workerEnv());
  const N = 300;
  await t.db.transaction().execute(async (tx) => {
    const events = new EventLog();
    for (let i = 0; i < N; i++) await events.emit(tx, { workspaceId: ws.id, event: 'project.updated', projectId: null, data: { i } });
  });

  // The worker's in-flight deliveries are exactly those leased; wait until each has reached the receiver.
  const leased = async () => Number((await sql<{ n: number }>`
    select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId} and lease_until is not null and status = 'pending'`.execute(t.db)).rows[0]!.n);
  const inFlight = await eventually('the first deliveries to be in flight', async () => {
    const n = await leased();
    return n > 0 && receiver.at(path).length === n ? n : null;
  });
  assert.ok(inFlight < N, 'some deliveries are still queued');
  const beforeCrash = new Set(receiver.at(path).map((r) => String(r.headers['webhook-id'])));
  assert.equal(beforeCrash.size, inFlight);

  await first.stop('SIGKILL');
  const countBefore = receiver.at(path).length;
  answering = true;

  const second = await Service.start('worker', workerEnv());
  await eventually('every delivery to succeed', async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId} and status = 'succeeded'`.execute(t.db);
    return rows[0]!.n === N;
  }, 30_000);

  const afterCrash = new Map<string, number>();
  for (const r of receiver.at(path).slice(countBefore)) {
    const id = String(r.headers['webhook-id']);
    afterCrash.set(id, (afterCrash.get(id) ?? 0) + 1);
  }
  assert.equal(afterCrash.size, N, 'every event arrived after the crash');
  for (const [id, count] of afterCrash) assert.equal(count, 1, `${id} arrived once after the crash`);

  const deliveries = await t.db.selectFrom('webhook_deliveries').select(['id', 'event_id', 'attempt_count', 'status'])
    .where('endpoint_id', '=', endpointId).execute();
  assert.equal(deliveries.length, N);
  for (const d of deliveries) {
    // the crashed attempt counts (a delivery that kept crashing its worker would not loop forever) but has no record
    assert.equal(d.attempt_count, beforeCrash.has(d.event_id) ? 2 : 1, d.id);
  }
  const { rows: [recorded] } = await sql<{ n: number }>`
    select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ${endpointId}`.execute(t.db);
  assert.equal(recorded!.n, N, 'one recorded attempt per delivery');

  const stopped = await second.stop('SIGTERM');
  assert.equal(stopped.code, 0, second.output);
  assert.ok(second.messages.includes('Stopped'));
});
