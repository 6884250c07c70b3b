import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import { sql } from 'kysely';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { EventLog } from '../src/features/events/events.log.ts';
import type { EventType } from '../src/features/events/event-types.ts';
import { generateWebhookSecret } from '../src/features/webhooks/webhooks.signing.ts';
import { WebhookDispatcher, type Clock } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { newId } from '../src/ids.ts';
import type { Tx } from '../src/db/database.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { eventually, Receiver, type Received } from './webhook-receiver.ts';

const silent = pino({ level: 'silent' });

let t: TestContext;
let receiver: Receiver;
let dispatcher: WebhookDispatcher;
/** The dispatcher's clock: real time unless a test pins it. */
let pinned: Date | null = null;
const clock: Clock = { now: () => pinned ?? new Date() };
let paths = 0;
const newPath = () => `/hook/${++paths}`;

/** Delivery attempts time out after this long in these tests (10 s in production). */
const TEST_TIMEOUT_MS = 500;

function startDispatcher(ctx: TestContext, clk: Clock = clock, timeoutMs = TEST_TIMEOUT_MS) {
  return new WebhookDispatcher(
    { db: ctx.db, connectionString: ctx.url, config: ctx.config, log: silent, clock: clk },
    { timeoutMs, random: () => 0.5 },
  );
}

before(async () => {
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  receiver = await Receiver.start();
  dispatcher = startDispatcher(t);
  await dispatcher.start();
});

after(async () => {
  await dispatcher.stop();
  await receiver.close();
  await t.close();
});

interface Endpoint { id: string; secret: string; path: string }

async function createEndpoint(ws: TestWorkspace, events: string[], extra: Record<string, unknown> = {}): Promise<Endpoint> {
  const path = newPath();
  const res = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: receiver.url(path), events, ...extra });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json();
  return { id: body.id, secret: body.secret, path };
}

async function createProject(ws: TestWorkspace, name = 'Delivery test') {
  const res = await api(t, ws.admin, 'POST', '/v1/projects', { name });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function ping(ws: TestWorkspace, endpoint: Endpoint): Promise<string> {
  const res = await api(t, ws.admin, 'POST', `/v1/webhooks/${endpoint.id}/ping`);
  assert.equal(res.statusCode, 202, res.body);
  return res.json().delivery_id;
}

const delivery = (id: string, db = t.db) => db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attempts = (id: string, db = t.db) => db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('id').execute();
const endpointRow = (id: string, db = t.db) => db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const deliveriesOf = (endpointId: string, db = t.db) => db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).execute();

/** Waits until the delivery is settled: not leased, and done or at least `minAttempts` in. */
function settled(id: string, minAttempts: number, db = t.db) {
  return eventually(`delivery ${id} after ${minAttempts} attempt(s)`, async () => {
    const d = await delivery(id, db);
    return d.lease_until === null && (d.status !== 'pending' || d.attempt_count >= minAttempts) ? d : null;
  });
}

/** Makes a waiting retry due now and wakes the dispatcher, instead of waiting minutes. */
async function dueNow(id: string, d = dispatcher, db = t.db) {
  await db.updateTable('webhook_deliveries').set({ next_attempt_at: sql`now()` }).where('id', '=', id).execute();
  d.wake();
}

/** An event and its deliveries, emitted directly (as a feature would), with `adjust` run in the same transaction. */
async function emit(workspaceId: string, event: EventType, adjust?: (deliveryIds: string[], tx: Tx) => Promise<void>, db = t.db) {
  return db.transaction().execute(async (tx) => {
    const envelope = await new EventLog().emit(tx, { workspaceId, event, projectId: null, data: { test: true } });
    const ids = (await tx.selectFrom('webhook_deliveries').select('id').where('event_id', '=', envelope.id).execute()).map((r) => r.id);
    await adjust?.(ids, tx);
    return { envelope, deliveryIds: ids };
  });
}

async function checkSignatures(r: Received, secret: string) {
  assert.equal(await verifyGithub(secret, r.body, String(r.headers['x-service-signature'])), true, 'X-Service-Signature verifies');
  assert.doesNotThrow(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>), 'webhook-signature verifies');
}

describe('webhook delivery', () => {
  it('delivers a project change, signed so both verifier libraries accept it, with the stored bytes', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['project.*']);
    const project = await createProject(ws);
    const [r] = await eventually('the delivery', () => receiver.at(endpoint.path).length ? receiver.at(endpoint.path) : null, 5000);
    assert.ok(r);
    assert.equal(r.method, 'POST');
    await checkSignatures(r, endpoint.secret);
    assert.equal(await verifyGithub(generateWebhookSecret(), r.body, String(r.headers['x-service-signature'])), false, 'another secret does not verify');

    const event = await t.db.selectFrom('events').selectAll().where('id', '=', String(r.headers['webhook-id'])).executeTakeFirstOrThrow();
    assert.equal(r.body, event.payload, 'the body is the stored payload, byte for byte');
    const envelope = JSON.parse(r.body);
    assert.equal(envelope.event, 'project.created');
    assert.equal(envelope.data.id, project.id);
    assert.equal(envelope.workspace_id, ws.id);
    assert.equal(r.headers['x-service-event'], 'project.created');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.match(String(r.headers['user-agent']), /^Jobsite-Webhooks\/\d+\.\d+\.\d+ \(\+http:\/\/jobsite\.test\)$/);
    assert.equal(r.headers['x-service-signature-previous'], undefined);
    assert.equal(String(r.headers['webhook-signature']).split(' ').length, 1);

    const d = await settled(String(r.headers['x-service-delivery']), 1);
    assert.equal(d.endpoint_id, endpoint.id);
    assert.equal(d.event_id, event.id);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempt_count, 1);
    assert.equal(d.last_status_code, 200);
    assert.ok(d.completed_at);
    const [a, ...more] = await attempts(d.id);
    assert.equal(more.length, 0);
    assert.equal(a!.status_code, 200);
    assert.equal(a!.response_excerpt, 'ok');
    assert.equal(a!.error, null);
    assert.ok(a!.duration_ms >= 0);
    const e = await endpointRow(endpoint.id);
    assert.ok(e.last_success_at);
    assert.equal(e.failing_since, null);
  });

  it('retries a 500 at once and records both attempts', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    receiver.on(endpoint.path, (_req, res, i) => res.writeHead(i === 0 ? 500 : 200).end(i === 0 ? 'boom' : 'fine'));
    const id = await ping(ws, endpoint);
    const d = await settled(id, 2);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempt_count, 2);
    const list = await attempts(id);
    assert.deepEqual(list.map((a) => [a.status_code, a.response_excerpt, a.error]), [[500, 'boom', null], [200, 'fine', null]]);
    const [first, second] = receiver.at(endpoint.path);
    assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id'], 'the same webhook-id on every retry');
    assert.equal(first!.headers['x-service-delivery'], id);
    assert.equal(first!.body, second!.body);
    const e = await endpointRow(endpoint.id);
    assert.equal(e.failing_since, null, 'a success clears failing_since');
    assert.ok(e.last_success_at);

    // and the delivery log of the API shows them
    const log = await api(t, ws.admin, 'GET', `/v1/webhooks/${endpoint.id}/deliveries/${id}`);
    assert.equal(log.statusCode, 200, log.body);
  });

  it('records a timeout as an error and reschedules the delivery', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    receiver.on(endpoint.path, () => undefined); // never answers
    const id = await ping(ws, endpoint);
    const d = await settled(id, 2);
    assert.equal(d.status, 'pending');
    assert.equal(d.attempt_count, 2);
    assert.ok(d.next_attempt_at! > new Date(), 'the third attempt waits');
    assert.match(d.last_error!, /^timeout: /);
    assert.equal(d.last_status_code, null);
    const list = await attempts(id);
    assert.equal(list.length, 2);
    for (const a of list) {
      assert.equal(a.status_code, null);
      assert.match(a.error!, /^timeout: No complete response from 127\.0\.0\.1:\d+ within 500 ms/);
    }
    const e = await endpointRow(endpoint.id);
    assert.ok(e.failing_since, 'the endpoint is failing');
    assert.ok(e.enabled);
  });

  it('disables an endpoint that answers 410, fails its pending deliveries and tells the workspace\'s other endpoints', async () => {
    const ws = await newWorkspace(t);
    const gone = await createEndpoint(ws, ['*']);
    const watcher = await createEndpoint(ws, ['webhook.*']);
    const bystander = await createEndpoint(ws, ['project.*']);
    const elsewhere = await createEndpoint(await newWorkspace(t), ['*']);
    receiver.on(gone.path, (_req, res) => res.writeHead(410).end());
    // a delivery to the same endpoint that waits for later
    const later = await emit(ws.id, 'project.updated', async (ids, tx) => {
      await tx.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(Date.now() + 3600_000) }).where('id', 'in', ids).execute();
    });
    const waiting = (await deliveriesOf(gone.id)).find((d) => d.event_id === later.envelope.id)!;

    const id = await ping(ws, gone);
    const d = await settled(id, 1);
    assert.equal(d.status, 'failed');
    assert.equal(d.attempt_count, 1, 'no retry');
    assert.equal(d.last_status_code, 410);
    assert.equal(d.last_error, 'endpoint disabled');
    assert.equal((await delivery(waiting.id)).status, 'failed');
    assert.equal((await delivery(waiting.id)).last_error, 'endpoint disabled');

    const view = await api(t, ws.admin, 'GET', `/v1/webhooks/${gone.id}`);
    assert.equal(view.json().enabled, false);
    assert.equal(view.json().disabled_reason, 'gone');
    assert.ok(view.json().disabled_at);

    const [notice] = await eventually('webhook.disabled', () => receiver.at(watcher.path).length ? receiver.at(watcher.path) : null);
    await checkSignatures(notice!, watcher.secret);
    const envelope = JSON.parse(notice!.body);
    assert.equal(envelope.event, 'webhook.disabled');
    assert.equal(envelope.data.id, gone.id);
    assert.equal(envelope.data.enabled, false);
    assert.equal(envelope.data.disabled_reason, 'gone');
    assert.equal(envelope.data.secret, undefined, 'never the secret');
    assert.equal((await deliveriesOf(bystander.id)).filter((x) => x.event_id === envelope.id).length, 0, 'not subscribed to webhook.*');
    assert.equal((await deliveriesOf(elsewhere.id)).length, 0, 'another workspace hears nothing');
    assert.equal(receiver.at(gone.path).length, 1, 'the disabled endpoint gets no more');
  });

  it('disables an endpoint that has failed for 5 days at its next failure', async () => {
    const ws = await newWorkspace(t);
    const failing = await createEndpoint(ws, ['*']);
    const watcher = await createEndpoint(ws, ['webhook.disabled']);
    receiver.on(failing.path, (_req, res) => res.writeHead(502).end());
    await t.db.updateTable('webhook_endpoints').set({ failing_since: new Date(Date.now() - 5 * 86400_000 - 60_000) }).where('id', '=', failing.id).execute();
    const id = await ping(ws, failing);
    const d = await settled(id, 1);
    assert.equal(d.status, 'failed');
    assert.equal(d.last_status_code, 502);
    const e = await endpointRow(failing.id);
    assert.equal(e.enabled, false);
    assert.equal(e.disabled_reason, 'failing');
    const [notice] = await eventually('webhook.disabled', () => receiver.at(watcher.path).length ? receiver.at(watcher.path) : null);
    assert.equal(JSON.parse(notice!.body).data.disabled_reason, 'failing');

    // failing for less than 5 days: only marked
    const young = await createEndpoint(ws, ['*']);
    receiver.on(young.path, (_req, res) => res.writeHead(502).end());
    const since = new Date(Date.now() - 4 * 86400_000);
    await t.db.updateTable('webhook_endpoints').set({ failing_since: since }).where('id', '=', young.id).execute();
    await settled(await ping(ws, young), 2);
    const y = await endpointRow(young.id);
    assert.equal(y.enabled, true);
    assert.equal(y.failing_since!.getTime(), since.getTime(), 'failing_since keeps the first failure');
  });

  it('honours Retry-After between the scheduled delay and twice it', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    pinned = start;
    try {
      const answers = [
        { status: 503, retryAfter: '3600' }, // after attempt 1 the retry is immediate whatever it says
        { status: 503, retryAfter: '7' }, // scheduled 5 s: 7 s is within [5 s, 10 s]
        { status: 429, retryAfter: new Date(start.getTime() + 3600_000).toUTCString() }, // scheduled 5 min: capped at 10 min
        { status: 503, retryAfter: '1' }, // scheduled 30 min: at least that
        { status: 200, retryAfter: null },
      ];
      receiver.on(endpoint.path, (_req, res, i) => {
        const a = answers[i]!;
        res.writeHead(a.status, a.retryAfter ? { 'retry-after': a.retryAfter } : {}).end();
      });
      const id = await ping(ws, endpoint);
      let d = await settled(id, 2);
      assert.equal(d.status, 'pending');
      assert.equal(d.next_attempt_at!.getTime() - start.getTime(), 7_000);

      await dueNow(id);
      d = await settled(id, 3);
      assert.equal(d.next_attempt_at!.getTime() - start.getTime(), 10 * 60_000);

      await dueNow(id);
      d = await settled(id, 4);
      assert.equal(d.next_attempt_at!.getTime() - start.getTime(), 30 * 60_000);

      await dueNow(id);
      d = await settled(id, 5);
      assert.equal(d.status, 'succeeded');
      assert.deepEqual((await attempts(id)).map((a) => a.status_code), [503, 503, 429, 503, 200]);
    } finally {
      pinned = null;
    }
  });

  it('follows the schedule without Retry-After (no jitter from the injected random source)', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    const start = new Date();
    pinned = start;
    try {
      receiver.on(endpoint.path, (_req, res) => res.writeHead(500).end());
      const id = await ping(ws, endpoint);
      const expected = [5_000, 5 * 60_000, 30 * 60_000];
      for (let n = 2; n <= 4; n++) {
        const d = await settled(id, n);
        assert.equal(d.next_attempt_at!.getTime() - start.getTime(), expected[n - 2], `after attempt ${n}`);
        await dueNow(id);
      }
    } finally {
      pinned = null;
    }
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    const target = newPath();
    receiver.on(endpoint.path, (_req, res) => res.writeHead(301, { location: receiver.url(target) }).end('moved'));
    const id = await ping(ws, endpoint);
    const d = await settled(id, 2);
    assert.equal(d.status, 'pending');
    assert.equal(d.last_status_code, 301);
    assert.match(d.last_error!, /^redirect not followed \(Location: http:\/\/127\.0\.0\.1:\d+\/hook\/\d+\)$/);
    const [a] = await attempts(id);
    assert.equal(a!.status_code, 301);
    assert.equal(a!.response_excerpt, 'moved');
    assert.equal(receiver.at(target).length, 0, 'the Location was never requested');
  });

  it('delivers only to endpoints whose patterns match, and only to enabled ones', async () => {
    const ws = await newWorkspace(t);
    const users = await createEndpoint(ws, ['user.*']);
    const exact = await createEndpoint(ws, ['project.created']);
    const updates = await createEndpoint(ws, ['project.updated']);
    const all = await createEndpoint(ws, ['*']);
    const disabled = await createEndpoint(ws, ['*'], { enabled: false });
    const project = await createProject(ws);
    await eventually('both matching deliveries', () => receiver.at(exact.path).length === 1 && receiver.at(all.path).length === 1);
    for (const e of [users, updates, disabled]) {
      assert.equal((await deliveriesOf(e.id)).length, 0);
      assert.equal(receiver.at(e.path).length, 0);
    }
    assert.equal(JSON.parse(receiver.at(exact.path)[0]!.body).data.id, project.id);
  });

  it('fails a delivery whose endpoint was disabled before it was sent, without sending it', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    const { deliveryIds: [id] } = await emit(ws.id, 'project.updated', async (ids, tx) => {
      await tx.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(Date.now() + 3600_000) }).where('id', 'in', ids).execute();
    });
    await t.db.updateTable('webhook_endpoints').set({ enabled: false, disabled_reason: 'manual' }).where('id', '=', endpoint.id).execute();
    await dueNow(id!);
    const d = await settled(id!, 1);
    assert.equal(d.status, 'failed');
    assert.equal(d.last_error, 'endpoint disabled');
    assert.equal(d.attempt_count, 0);
    assert.equal((await attempts(id!)).length, 0);
    assert.equal(receiver.at(endpoint.path).length, 0);
  });

  it('signs with both secrets during a rotation, and each verifies', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    const rotated = await api(t, ws.admin, 'POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {});
    assert.equal(rotated.statusCode, 200, rotated.body);
    const secret = rotated.json().secret as string;
    assert.notEqual(secret, endpoint.secret);
    await ping(ws, endpoint);
    const [r] = await eventually('the delivery', () => receiver.at(endpoint.path).length ? receiver.at(endpoint.path) : null);
    await checkSignatures(r!, secret);
    assert.equal(await verifyGithub(endpoint.secret, r!.body, String(r!.headers['x-service-signature-previous'])), true);
    assert.equal(await verifyGithub(endpoint.secret, r!.body, String(r!.headers['x-service-signature'])), false, 'the main header is the new secret\'s');
    assert.equal(String(r!.headers['webhook-signature']).split(' ').length, 2);
    assert.doesNotThrow(() => new Webhook(endpoint.secret).verify(r!.body, r!.headers as Record<string, string>), 'the old secret verifies too');

    // once the grace period is over, only the new secret signs
    await t.db.updateTable('webhook_endpoints').set({ previous_secret_expires_at: new Date(Date.now() - 1000) }).where('id', '=', endpoint.id).execute();
    await ping(ws, endpoint);
    const [, r2] = await eventually('the second delivery', () => receiver.at(endpoint.path).length === 2 ? receiver.at(endpoint.path) : null);
    assert.equal(r2!.headers['x-service-signature-previous'], undefined);
    assert.equal(String(r2!.headers['webhook-signature']).split(' ').length, 1);
    assert.throws(() => new Webhook(endpoint.secret).verify(r2!.body, r2!.headers as Record<string, string>));
    await checkSignatures(r2!, secret);
  });

  it('marks a delivery failed after its 11th attempt', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    receiver.on(endpoint.path, (_req, res) => res.writeHead(500).end());
    const { deliveryIds: [id] } = await emit(ws.id, 'project.updated', async (ids, tx) => {
      await tx.updateTable('webhook_deliveries').set({ attempt_count: 10 }).where('id', 'in', ids).execute();
    });
    const d = await settled(id!, 11);
    assert.equal(d.status, 'failed');
    assert.equal(d.attempt_count, 11);
    assert.equal(d.last_status_code, 500);
    assert.equal(d.last_error, 'HTTP 500');
    assert.ok(d.completed_at);
    assert.equal((await attempts(id!)).length, 1);
    assert.equal((await endpointRow(endpoint.id)).enabled, true, 'exhausting one delivery does not disable the endpoint');
  });

  it('with two dispatchers on one queue, sends every delivery exactly once', async () => {
    const ws = await newWorkspace(t);
    const endpoints = [await createEndpoint(ws, ['*']), await createEndpoint(ws, ['*'])];
    // Two dispatchers with a generous timeout: on a busy machine a receiver may take longer than
    // TEST_TIMEOUT_MS to answer, and a timed-out attempt is rightly sent again (at least once, by
    // design) — not what this test is about, which is that no delivery is claimed twice.
    await dispatcher.stop();
    const first = startDispatcher(t, clock, 15_000);
    const second = startDispatcher(t, clock, 15_000);
    await first.start();
    await second.start();
    try {
      const N = 150;
      await t.db.transaction().execute(async (tx) => {
        for (let i = 0; i < N; i++) await new EventLog().emit(tx, { workspaceId: ws.id, event: 'project.updated', projectId: null, data: { i } });
      });
      await eventually('every delivery', () => endpoints.every((e) => receiver.at(e.path).length >= N), 20_000);
      await first.idle();
      await second.idle();
      for (const e of endpoints) {
        const ids = receiver.at(e.path).map((r) => r.headers['webhook-id']);
        assert.equal(ids.length, N);
        assert.equal(new Set(ids).size, N, 'no duplicates');
        assert.ok((await deliveriesOf(e.id)).every((d) => d.status === 'succeeded' && d.attempt_count === 1));
      }
    } finally {
      await first.stop();
      await second.stop();
      dispatcher = startDispatcher(t);
      await dispatcher.start();
    }
  });

  it('gives a receiver that hangs at most a quarter of the slots, so other endpoints still get theirs', async () => {
    const ws = await newWorkspace(t);
    const slow = await createEndpoint(ws, ['project.*']);
    const fast = await createEndpoint(ws, ['webhook.ping']);
    let open = 0;
    let maxOpen = 0;
    let answer = false;
    receiver.on(slow.path, (_req, res) => {
      if (answer) return void res.writeHead(200).end();
      open++;
      maxOpen = Math.max(maxOpen, open);
      res.on('close', () => open--);
    });
    await t.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 100; i++) await new EventLog().emit(tx, { workspaceId: ws.id, event: 'project.updated', projectId: null, data: { i } });
    });
    await eventually('the slow endpoint to hold its share', () => open === 32);
    const id = await ping(ws, fast);
    const pinged = await settled(id, 1);
    assert.equal(pinged.status, 'succeeded', `ping delivery: ${JSON.stringify({ ...pinged, attempts: await attempts(id) })}`);
    assert.equal(maxOpen, 32, '128 slots, at most 32 per endpoint');

    answer = true;
    await eventually('the slow endpoint to catch up', async () => (await deliveriesOf(slow.id)).every((d) => d.status === 'succeeded'));
    assert.equal(maxOpen, 32);
  });

  it('listens again after losing its LISTEN connection', async () => {
    const ws = await newWorkspace(t);
    const endpoint = await createEndpoint(ws, ['*']);
    const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where application_name = 'jobsite-webhooks' and datname = current_database()`.execute(t.db);
    assert.equal(rows.length, 1);
    await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(t.db);
    await eventually('a new LISTEN connection', async () => {
      const { rows: now } = await sql<{ pid: number }>`select pid from pg_stat_activity where application_name = 'jobsite-webhooks' and datname = current_database()`.execute(t.db);
      return now.length === 1 && now[0]!.pid !== rows[0]!.pid;
    });
    await ping(ws, endpoint);
    await eventually('the delivery', () => receiver.at(endpoint.path).length === 1);
  });
});

describe('webhook delivery without an allow list', () => {
  let t2: TestContext;
  let d2: WebhookDispatcher;

  before(async () => {
    t2 = await startTestApp();
    d2 = startDispatcher(t2);
    await d2.start();
  });

  after(async () => {
    await d2.stop();
    await t2.close();
  });

  // Registration refuses these URLs (see the webhooks API tests): they stand for a name that
  // resolved to a public address at registration and to a private one now (DNS rebinding).
  for (const host of ['127.0.0.1', 'localhost']) {
    it(`refuses to connect to ${host} at send time and records the refusal`, async () => {
      const ws = await newWorkspace(t2);
      const path = newPath();
      const id = newId('webhook');
      await t2.db.insertInto('webhook_endpoints').values({
        id, workspace_id: ws.id, url: `http://${host}:${receiver.port}${path}`, events: ['*'], secret: generateWebhookSecret(),
      }).execute();
      const { deliveryIds: [deliveryId] } = await emit(ws.id, 'project.updated', undefined, t2.db);
      const d = await settled(deliveryId!, 2, t2.db);
      assert.equal(d.status, 'pending', 'retried later like any failure');
      assert.match(d.last_error!, /^ssrf_blocked: .*127\.0\.0\.1.* loopback address.*JOBSITE_WEBHOOK_ALLOW_PRIVATE/);
      const list = await attempts(deliveryId!, t2.db);
      assert.equal(list.length, 2);
      assert.ok(list.every((a) => a.status_code === null && a.error!.startsWith('ssrf_blocked: ')));
      assert.equal(receiver.at(path).length, 0, 'nothing reached the receiver');
    });
  }
});
