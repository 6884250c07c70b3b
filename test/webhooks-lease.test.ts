/**
 * The delivery lease: renewed while an attempt is in flight, so a receiver slower than the lease
 * is not sent the same delivery by another worker; and a claimer that lost its lease anyway never
 * records over the claimer that holds the delivery now. Real dispatchers on the test's database,
 * a real receiver on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { eventually, Receiver } from './webhook-receiver.ts';

const LEASE_SECONDS = 2;

let t: TestContext;
let receiver: Receiver;
const dispatchers: WebhookDispatcher[] = [];

before(async () => {
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  receiver = await Receiver.start();
  // Two workers sharing the queue, each polling often, with a lease shorter than the receiver takes.
  for (let i = 0; i < 2; i++) {
    const d = new WebhookDispatcher(
      { db: t.db, connectionString: t.url, config: t.config, log: pino({ level: 'silent' }) },
      { leaseSeconds: LEASE_SECONDS, timeoutMs: 10_000, pollMs: 100, random: () => 0.5 },
    );
    await d.start();
    dispatchers.push(d);
  }
});

after(async () => {
  for (const d of dispatchers) await d.stop();
  await receiver.close();
  await t.close();
});

const delivery = (id: string) => t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attempts = (id: string) => t.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).execute();

async function pingEndpoint(ws: TestWorkspace, path: string): Promise<string> {
  const created = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: receiver.url(path), events: ['project.*'] });
  assert.equal(created.statusCode, 201, created.body);
  const ping = await api(t, ws.admin, 'POST', `/v1/webhooks/${created.json().id}/ping`);
  assert.equal(ping.statusCode, 202, ping.body);
  return ping.json().delivery_id as string;
}

it('a receiver slower than the lease gets the delivery once: the lease is renewed while it is in flight', async () => {
  const ws = await newWorkspace(t);
  const path = '/slow';
  receiver.on(path, (_req, res) => {
    setTimeout(() => res.writeHead(200).end('took a while'), (LEASE_SECONDS * 2.5) * 1000);
  });
  const id = await pingEndpoint(ws, path);
  await eventually('the delivery to succeed', async () => (await delivery(id)).status === 'succeeded', 15_000);
  for (const d of dispatchers) await d.idle();

  assert.equal(receiver.at(path).length, 1, 'sent exactly once');
  const row = await delivery(id);
  assert.equal(row.attempt_count, 1);
  assert.equal(row.last_status_code, 200);
  assert.equal(row.lease_until, null);
  const logged = await attempts(id);
  assert.equal(logged.length, 1);
  assert.ok(logged[0]!.duration_ms >= LEASE_SECONDS * 2000, `the attempt outlived the lease (${logged[0]!.duration_ms} ms)`);
});

for (const answer of [500, 200]) {
  it(`a claimer whose lease was taken records its ${answer} as an attempt only, leaving the delivery to the new claimer`, async () => {
    const ws = await newWorkspace(t);
    const path = `/taken-${answer}`;
    let release: (() => void) | null = null;
    receiver.on(path, (_req, res) => {
      release = () => res.writeHead(answer).end(`answered ${answer}`);
    });
    const id = await pingEndpoint(ws, path);
    await eventually('the request to arrive', () => release !== null);

    // What another worker's claim does once a lease ran out (a process stalled past it): a new token and lease, one more attempt counted.
    const { rows: [taken] } = await sql<{ lease_token: string }>`
      update webhook_deliveries set lease_token = gen_random_uuid(), lease_until = now() + interval '1 hour', attempt_count = attempt_count + 1
       where id = ${id} returning lease_token::text`.execute(t.db);
    const before = await delivery(id);

    release!();
    await eventually('the first attempt to be logged', async () => (await attempts(id)).length === 1);
    for (const d of dispatchers) await d.idle();

    const after = await delivery(id);
    assert.equal(after.status, 'pending', 'the new claimer decides the outcome');
    assert.equal(after.lease_token, taken!.lease_token);
    assert.deepEqual(after.lease_until, before.lease_until, 'the new claim keeps its lease');
    assert.deepEqual(after.next_attempt_at, before.next_attempt_at);
    assert.equal(after.last_status_code, null);
    assert.equal(after.attempt_count, 2);
    const [logged] = await attempts(id);
    assert.equal(logged!.status_code, answer, 'the lost claimer\'s attempt is in the log');
    assert.equal(receiver.at(path).length, 1, 'nobody sent it again while the other claimer holds it');
  });
}
