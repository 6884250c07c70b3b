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
import { Agent, request } from 'undici';
import { cleanUp, cliEnv, Service } from './cli-process.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

const BUDGET_MS = 10_000;
const PAGE = 100;

let t: TestContext;
let ws: TestWorkspace;
let dataDir: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobsite-shutdown-'));
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8', JOBSITE_DATA_DIR: dataDir });
  ws = await newWorkspace(t);
  // A page of 100 projects: each GET does real work, so requests are still running at the signal.
  for (let i = 0; i < PAGE; i++) {
    const res = await api(t, ws.admin, 'POST', '/v1/projects', { name: `Site ${i}`, address: { city: 'Springfield', country: 'US' } });
    assert.equal(res.statusCode, 201, res.body);
  }
});

after(async () => {
  await cleanUp([]);
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

/** The service's request log: ids of the requests it received, and of those it answered. */
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

/** A raw connection on which a request is sent in two parts; resolves with everything the server sent until it closed. */
function splitRequest(service: Service): { connected: Promise<void>; finish(): Promise<string> } {
  const { hostname, port } = new URL(service.url);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8').on('data', (d: string) => { received += d; });
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  const connected = new Promise<void>((resolve) => socket.once('connect', () => {
    socket.write(`GET /v1/users/me HTTP/1.1\r\nHost: ${hostname}\r\n`);
    resolve();
  }));
  return {
    connected,
    finish() {
      socket.write(`Authorization: Bearer ${ws.admin.key}\r\nConnection: keep-alive\r\n\r\n`);
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
    const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      // A request whose first half arrives now and the rest after closing began.
      const late = splitRequest(service);
      await late.connected;

      const firstWave = Array.from({ length: 40 }, () => get(agent, service, `/v1/projects?limit=${PAGE}`));
      await new Promise((r) => setTimeout(r, 30));
      const exited = terminate(service);
      await refusesConnections(service);
      const lateAnswer = late.finish();
      const secondWave = Array.from({ length: 20 }, () => get(agent, service, `/v1/projects?limit=${PAGE}`));
      const outcomes = [...await Promise.all(firstWave), ...await Promise.all(secondWave)];
      const { code, ms } = await exited;
      console.log(`# shutdown of \`serve\` with 40 keep-alive requests running: exit ${code} after ${ms} ms`);

      assert.equal(code, 0, service.output);
      assert.ok(ms < BUDGET_MS, `exited after ${ms} ms`);
      assert.ok(!service.messages.some((m) => /cutoff/.test(m)), 'nothing had to be cut');

      const responses = outcomes.filter((o) => o.kind === 'response');
      const ok = responses.filter((o) => o.status === 200);
      for (const r of ok) assert.equal(r.json.data.length, PAGE, 'each 200 is whole');
      for (const r of responses.filter((o) => o.status !== 200)) assertShuttingDown(r.status, r.headers, r.json);
      // Requests running when the signal came finished, and told the client to drop the connection.
      const closing = ok.filter((r) => r.headers.connection === 'close');
      console.log(`# ${ok.length} × 200 (${closing.length} with Connection: close), ${responses.length - ok.length} × 503, ` +
        `${outcomes.length - responses.length} never answered (${[...new Set(outcomes.filter((o) => o.kind === 'error').map((o) => o.code))].join(', ')})`);
      assert.ok(closing.length > 0, 'some requests were running at the signal');
      // No answer at all only for requests the server never got: refused or reset before any byte came back.
      for (const o of outcomes) {
        if (o.kind === 'error') {
          assert.equal(o.during, 'request', `a response was cut short (${o.code})`);
          assert.match(o.code, /^(ECONNREFUSED|ECONNRESET|EPIPE|UND_ERR_SOCKET)$/);
        }
      }

      // The request that arrived after closing began: a 503 problem, then the server closed the connection.
      const raw = await lateAnswer;
      const [head, body] = raw.split('\r\n\r\n') as [string, string];
      const headers = Object.fromEntries(head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      assertShuttingDown(Number(head.split(' ')[1]), headers, JSON.parse(body));

      // Every request the server received was answered, and every answer reached its client.
      const log = requestLog(service);
      assert.deepEqual([...log.incoming].filter((id) => !log.completed.has(id)), [], 'requests received but not answered');
      assert.equal(log.completed.size, responses.length + 1);
      assert.equal([...log.completed.values()].filter((s) => s === 200).length, ok.length);
    } finally {
      await agent.close();
    }
  });

  it('idle keep-alive clients and silent connections do not hold the exit up', async () => {
    const service = await Service.start('serve', serviceEnv());
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
      console.log(`# shutdown of \`serve\` with 11 idle connections: exit ${code} after ${ms} ms`);
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
