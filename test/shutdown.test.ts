/**
 * Stopping under load (issue 12): real `jobsite` processes on the test's database, SIGTERM while
 * real clients hold keep-alive connections, requests are running, and a worker has a job and a
 * webhook delivery in flight. Nothing accepted is lost, and the process exits 0 within the
 * budget (JOBSITE_SHUTDOWN_TIMEOUT_SECONDS, 10 s). The measured times are printed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { Agent, request } from 'undici';
import { cleanUp, cliEnv, Service } from './cli-process.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';
import { eventually, Receiver } from './webhook-receiver.ts';

const BUDGET_MS = 10_000;
const PAGE = 100;

let t: TestContext;
let ws: TestWorkspace;
let dataDir: string;
let receiver: Receiver;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobsite-shutdown-'));
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8', JOBSITE_DATA_DIR: dataDir });
  ws = await newWorkspace(t);
  receiver = await Receiver.start();
  // A page of 100 projects: each GET does real work, so requests are still running at the signal.
  for (let i = 0; i < PAGE; i++) {
    const res = await api(t, ws.admin, 'POST', '/v1/projects', { name: `Site ${i}`, address: { city: 'Springfield', country: 'US' } });
    assert.equal(res.statusCode, 201, res.body);
  }
});

after(async () => {
  await cleanUp([]);
  await receiver.close();
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const serviceEnv = (vars: Record<string, string> = {}) => cliEnv({
  DATABASE_URL: t.url, JOBSITE_DATA_DIR: dataDir, JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
  JOBSITE_RATE_LIMIT: '100000', LOG_LEVEL: 'info', ...vars,
});

type Outcome =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; json: any }
  /** No response at all (refused, or reset before anything came back), or one cut short. */
  | { kind: 'error'; code: string; during: 'request' | 'body' };

/** A GET through `agent` (undici, keep-alive), read to its end. */
async function get(agent: Agent, service: Service, url: string): Promise<Outcome> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(`${service.url}${url}`, { dispatcher: agent, headers: { authorization: `Bearer ${ws.admin.key}` } });
  } catch (err) {
    return { kind: 'error', code: errorCode(err), during: 'request' };
  }
  try {
    const text = await res.body.text();
    return { kind: 'response', status: res.statusCode, headers: res.headers, json: JSON.parse(text) };
  } catch (err) {
    return { kind: 'error', code: errorCode(err), during: 'body' };
  }
}

function errorCode(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.cause?.code ?? e.code ?? String(err);
}

/** The service's request log: ids of the requests it received, and of those it answered (with the status). */
function requestLog(service: Service): { incoming: Set<string>; completed: Map<string, number> } {
  const incoming = new Set<string>();
  const completed = new Map<string, number>();
  for (const line of service.output.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; reqId?: string; res?: { statusCode: number } };
    if (entry.msg === 'incoming request') incoming.add(entry.reqId!);
    if (entry.msg === 'request completed') completed.set(entry.reqId!, entry.res!.statusCode);
  }
  return { incoming, completed };
}

/** Sends SIGTERM; resolves with the exit and the milliseconds from the signal to it. */
function terminate(service: Service): Promise<{ code: number | null; ms: number }> {
  const signalled = performance.now();
  service.child.kill('SIGTERM');
  return service.waitForExit(30_000).then(({ code }) => ({ code, ms: Math.round(performance.now() - signalled) }));
}

/** Resolves once a new connection to the service's port is refused (its listening socket is closed). */
async function refusesConnections(service: Service): Promise<void> {
  const { hostname, port } = new URL(service.url);
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(Number(port), hostname);
      s.once('connect', () => { s.destroy(); resolve(false); });
      s.once('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/**
 * A request sent by hand in two parts on a connection of its own: `first` now, `rest` by
 * finish(), which resolves with the response once the server has closed the connection.
 */
function splitRequest(service: Service, first: string, rest: string): { connected: Promise<void>; finish(): Promise<RawResponse> } {
  const { hostname, port } = new URL(service.url);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8').on('data', (d: string) => { received += d; });
  const closed = new Promise<RawResponse>((resolve, reject) => {
    socket.on('close', () => {
      const [head, body] = received.split('\r\n\r\n') as [string, string];
      const lines = head.split('\r\n');
      resolve({
        status: Number(lines[0]!.split(' ')[1]),
        headers: Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()])),
        body: JSON.parse(body),
      });
    });
    socket.on('error', reject);
  });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => {
    socket.write(first);
    resolve();
  }));
  return {
    connected,
    finish() {
      socket.write(rest);
      return closed;
    },
  };
}

function assertShuttingDown(status: number, headers: Record<string, string | string[] | undefined>, body: any): void {
  assert.equal(status, 503);
  assert.match(String(headers['content-type']), /^application\/problem\+json/);
  assert.equal(headers.connection, 'close');
  assert.equal(headers['retry-after'], '1');
  assert.equal(body.code, 'shutting_down');
  assert.equal(body.status, 503);
}

describe('SIGTERM under load', () => {
  it('finishes the requests it accepted (with Connection: close), refuses later ones, and exits 0 within the budget', async () => {
    const service = await Service.start('serve', serviceEnv());
    const agent = new Agent({ connections: 40, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      const { hostname } = new URL(service.url);
      // Accepted before the signal, its body still on the way: it must be answered whole.
      const body = JSON.stringify({ name: 'Slow upload site' });
      const accepted = splitRequest(service,
        `POST /v1/projects HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${ws.admin.key}\r\nX-Request-Id: slow-body\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body.slice(0, 10)}`,
        body.slice(10));
      // Its headers not complete at the signal: not accepted yet, so refused with a 503.
      const late = splitRequest(service, `GET /v1/users/me HTTP/1.1\r\nHost: ${hostname}\r\n`,
        `Authorization: Bearer ${ws.admin.key}\r\nConnection: keep-alive\r\n\r\n`);
      await Promise.all([accepted.connected, late.connected]);
      await eventually('the slow request to be accepted', () => requestLog(service).incoming.has('slow-body'));

      // 40 keep-alive connections, open and idle, then 40 requests on them at once.
      const warm = await Promise.all(Array.from({ length: 40 }, () => get(agent, service, '/v1/users/me')));
      for (const o of warm) assert.equal(o.kind === 'response' && o.status, 200);
      const firstWave = Array.from({ length: 40 }, () => get(agent, service, `/v1/projects?limit=${PAGE}`));
      await new Promise((r) => setTimeout(r, 30));
      const exited = terminate(service);
      await refusesConnections(service);
      const acceptedAnswer = accepted.finish();
      const lateAnswer = late.finish();
      const secondWave = Array.from({ length: 20 }, () => get(agent, service, `/v1/projects?limit=${PAGE}`));
      const first = await Promise.all(firstWave);
      const outcomes = [...first, ...await Promise.all(secondWave)];
      const { code, ms } = await exited;
      const tally = (list: Outcome[]) => {
        const counts = new Map<string, number>();
        for (const o of list) {
          const key = o.kind === 'response' ? `${o.status}${o.headers.connection === 'close' ? ' (Connection: close)' : ''}` : o.code;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        return [...counts].map(([k, n]) => `${n} × ${k}`).join(', ');
      };
      console.log(`# shutdown of \`serve\` with 40 keep-alive requests running: exit ${code} after ${ms} ms`);
      console.log(`# the 40 sent before the signal: ${tally(first)}; the 20 sent after: ${tally(outcomes.slice(40))}`);

      assert.equal(code, 0, service.output);
      assert.ok(ms < BUDGET_MS, `exited after ${ms} ms`);
      assert.ok(!service.messages.some((m) => /cutoff/.test(m)), 'nothing had to be cut');

      const responses = outcomes.filter((o) => o.kind === 'response');
      const ok = responses.filter((o) => o.status === 200);
      for (const r of ok) assert.equal(r.json.data.length, PAGE, 'each 200 is whole');
      for (const r of responses.filter((o) => o.status !== 200)) assertShuttingDown(r.status, r.headers, r.json);
      // No answer at all only for requests the server never got: refused or reset before any byte came back.
      for (const o of outcomes) {
        if (o.kind === 'error') {
          assert.equal(o.during, 'request', `a response was cut short (${o.code})`);
          assert.match(o.code, /^(ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET)$/);
        }
      }

      // The request accepted before the signal: answered whole, and the server closed the connection.
      const created = await acceptedAnswer;
      assert.equal(created.status, 201);
      assert.equal(created.headers.connection, 'close');
      assert.equal(created.body.name, 'Slow upload site');
      // The request whose headers came after closing began: a 503 problem, then the connection closed.
      const refused = await lateAnswer;
      assertShuttingDown(refused.status, refused.headers, refused.body);

      // Every request the server received was answered, and every answer reached its client.
      const log = requestLog(service);
      assert.deepEqual([...log.incoming].filter((id) => !log.completed.has(id)), [], 'requests received but not answered');
      assert.equal(log.completed.size, warm.length + responses.length + 2);
      assert.equal([...log.completed.values()].filter((s) => s === 200).length, warm.length + ok.length);
    } finally {
      await agent.close();
    }
  });

  it('idle keep-alive clients and silent connections do not hold the exit up (API and worker in one process)', async () => {
    const service = await Service.start('start', serviceEnv());
    const agent = new Agent({ connections: 10, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    const { hostname, port } = new URL(service.url);
    const silent = net.connect(Number(port), hostname);
    const silentClosed = new Promise<void>((resolve) => silent.on('close', () => resolve()));
    silent.on('error', () => undefined);
    try {
      await new Promise((resolve) => silent.once('connect', resolve));
      const warm = await Promise.all(Array.from({ length: 10 }, () => get(agent, service, '/v1/users/me')));
      for (const o of warm) assert.equal(o.kind === 'response' && o.status, 200);
      // Ten idle keep-alive connections in the agent's pool, one that never sent a byte.
      const { code, ms } = await terminate(service);
      console.log(`# shutdown of \`start\` with 11 idle connections: exit ${code} after ${ms} ms`);
      assert.equal(code, 0, service.output);
      assert.ok(ms < BUDGET_MS, `exited after ${ms} ms`);
      assert.ok(!service.messages.some((m) => /cutoff/.test(m)), 'the idle connections were closed, not cut at the cutoff');
      await silentClosed;
    } finally {
      silent.destroy();
      await agent.close();
    }
  });
});

describe('SIGTERM to a worker with work in flight', () => {
  it('hands a hung job and a hung webhook send back to the queue, exits 0 within the budget, and the next worker finishes both', async () => {
    // A receiver that holds every request until told to answer.
    let answering = false;
    receiver.on('/slow', (_req, res) => {
      if (answering) res.writeHead(204).end();
    });
    const hook = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: receiver.url('/slow'), events: ['project.created'] });
    assert.equal(hook.statusCode, 201, hook.body);

    // A photo whose processing job will wait for a row lock the test holds: a job that does not end.
    const projectId = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Warehouse' })).json().id as string;
    const { payload, headers } = multipart({}, { data: await jpegWithExif(), contentType: 'image/jpeg' });
    const uploaded = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
    assert.equal(uploaded.statusCode, 201, uploaded.body);
    const photoId = uploaded.json().id as string;
    const locker = new pg.Client({ connectionString: t.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from photos where id = $1 for update', [photoId]);

      // A lease far longer than the test: only a hand-back lets the next worker send the delivery in time.
      const first = await Service.start('worker', serviceEnv({ JOBSITE_WEBHOOK_LEASE_SECONDS: '300' }));
      await eventually('the webhook send to be in flight', () => receiver.at('/slow').length === 1, 20_000);
      await eventually('the job to wait for the row lock', async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and application_name <> 'jobsite-webhooks-claim'`.execute(t.db);
        return rows[0]!.n > 0;
      }, 20_000);

      const { code, ms } = await terminate(first);
      console.log(`# shutdown of \`worker\` with a hung job and a hung webhook send: exit ${code} after ${ms} ms`);
      assert.equal(code, 0, first.output);
      assert.ok(ms < BUDGET_MS, `exited after ${ms} ms`);
      assert.ok(first.messages.includes('Handing 1 running job(s) back to the queue'), first.output);
      assert.ok(first.messages.includes('Handing 1 webhook delivery(ies) in flight back to the queue'), first.output);

      // Handed back, not failed: no attempt recorded, the claim's count taken back, the lease released.
      const delivery = await t.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', hook.json().id).executeTakeFirstOrThrow();
      assert.equal(delivery.status, 'pending');
      assert.equal(delivery.lease_until, null);
      assert.equal(delivery.attempt_count, 0);
      const attempts = await t.db.selectFrom('webhook_attempts').select('id').where('delivery_id', '=', delivery.id).execute();
      assert.equal(attempts.length, 0);
      const { rows: jobs } = await sql<{ locked_by: string | null; last_error: string | null; due: boolean }>`
        select locked_by, last_error, run_at <= now() as due from graphile_worker.jobs where task_identifier = 'process_photo'`.execute(t.db);
      assert.deepEqual(jobs, [{ locked_by: null, last_error: null, due: true }]);
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }

    // The next worker sends the delivery and runs the job at once.
    answering = true;
    const second = await Service.start('worker', serviceEnv({ JOBSITE_WEBHOOK_LEASE_SECONDS: '300' }));
    await eventually('the delivery to succeed', async () => (await t.db.selectFrom('webhook_deliveries').select('status')
      .where('endpoint_id', '=', hook.json().id).executeTakeFirstOrThrow()).status === 'succeeded', 15_000);
    await eventually('the photo to be processed', async () => (await t.db.selectFrom('photos').select('processing_status')
      .where('id', '=', photoId).executeTakeFirstOrThrow()).processing_status === 'processed', 15_000);
    const sent = receiver.at('/slow');
    assert.equal(sent.length, 2, 'sent again after the hand-back (at least once)');
    assert.equal(sent[0]!.headers['webhook-id'], sent[1]!.headers['webhook-id']);
    const { code } = await terminate(second);
    assert.equal(code, 0, second.output);
  });
});
