/**
 * `npm run bench:webhooks`: webhook delivery latency and throughput, end to end.
 *
 * A fresh database (DATABASE_URL's server, or an embedded one), a real `jobsite serve` and ONE
 * `jobsite worker` process, and a receiver in this process on 127.0.0.1 that answers 200 and
 * records when each delivery arrived.
 *
 * (a) Latency: changes (alternately POST /v1/projects and PATCH /v1/projects/{id}) at a fixed
 *     rate, open loop; latency = the delivery's arrival at the receiver minus the moment the API
 *     response of its change was received (a delivery that beats the response counts 0).
 * (b) Throughput: BENCH_EVENTS events × BENCH_ENDPOINTS endpoints queued in one transaction;
 *     the drain rate is the number of deliveries over the time from the commit until the last one
 *     is recorded as succeeded.
 * Every phase checks that each (webhook-id, endpoint) arrived exactly once.
 *
 *   BENCH_SECONDS=20 (per latency phase)  BENCH_EVENTS=5000  BENCH_ENDPOINTS=4
 *   BENCH_PROFILE=1 writes a CPU profile of the worker to .tmp/prof
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { cpuMicros, createBenchDatabase, freePort } from './support.ts';
import { DELIVERIES_CHANNEL } from '../src/features/events/events.log.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';
import { newId } from '../src/ids.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 4);

/** CPU time of every process whose command line mentions `pattern` (the PostgreSQL backends). */
async function cpuMicrosOf(match: (cmdline: string) => boolean): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = (await fs.readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ');
      if (match(cmdline)) total += await cpuMicros(Number(entry));
    } catch { /* gone */ }
  }
  return total;
}
const postgresCpu = () => cpuMicrosOf((c) => c.startsWith('postgres'));

function spawnJobsite(role: 'serve' | 'worker', env: Record<string, string>): ChildProcess {
  const profile = process.env.BENCH_PROFILE && role === 'worker' ? ['--cpu-prof', '--cpu-prof-dir=.tmp/prof'] : [];
  return spawn(process.execPath, [...profile, '--import', 'tsx', 'src/main.ts', role], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function waitForLog(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in time:\n${seen}`)), timeoutMs);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      seen += d;
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`exited before ${pattern}:\n${seen}`)));
  });
  child.stdout!.removeAllListeners('data');
  child.stdout!.resume();
}

interface Arrival { path: string; webhookId: string; at: number; key: string | null }

/** The receiver: answers 204 at once and records each delivery. */
class Receiver {
  readonly arrivals: Arrival[] = [];
  /** When set, each body is parsed to find the change it reports. */
  parse = false;
  readonly byKey = new Map<string, number>();
  port = 0;
  private server!: http.Server;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        let key: string | null = null;
        if (this.parse) {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; data: { id: string; updated_at: string } };
          key = `${body.event}|${body.data.id}|${body.data.updated_at}`;
          if (!this.byKey.has(key)) this.byKey.set(key, at);
        }
        this.arrivals.push({ path: req.url!, webhookId: String(req.headers['webhook-id']), at, key });
        res.writeHead(204).end();
      });
    });
    this.server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Lost and duplicated deliveries among `arrivals`, given how many distinct ones were expected. */
function exactlyOnce(arrivals: Arrival[], expected: number): { received: number; lost: number; duplicated: number } {
  const unique = new Set(arrivals.map((a) => `${a.path} ${a.webhookId}`));
  return { received: arrivals.length, lost: expected - unique.size, duplicated: arrivals.length - unique.size };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const database = await createBenchDatabase();
  const { url } = database;
  const children: ChildProcess[] = [];
  const receiver = new Receiver();
  try {
    const handle = openDatabase(url, { max: 4 });
    const ws = await new WorkspacesService(handle.db).provision({ name: 'Bench', adminEmail: 'bench@example.test' });
    await receiver.start();

    const apiPort = await freePort();
    const common = { DATABASE_URL: url, JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8', JOBSITE_PUBLIC_URL: `http://127.0.0.1:${apiPort}` };
    const apiServer = spawnJobsite('serve', { ...common, PORT: String(apiPort), LOG_LEVEL: 'info', JOBSITE_RATE_LIMIT: '100000000' });
    children.push(apiServer);
    await waitForLog(apiServer, /Jobsite API on/);
    const worker = spawnJobsite('worker', { ...common, LOG_LEVEL: 'info' });
    children.push(worker);
    await waitForLog(worker, /Worker running/);

    const base = `http://127.0.0.1:${apiPort}`;
    const auth = { authorization: `Bearer ${ws.api_key.key}`, 'content-type': 'application/json' };
    const call = async (method: string, p: string, body: unknown) => {
      const res = await fetch(base + p, { method, headers: auth, body: JSON.stringify(body) });
      const json = await res.json() as Record<string, unknown>;
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    console.log(`\nJobsite webhooks — node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, one worker process\n`);

    // (a) latency: one endpoint on project.*
    const latencyPath = '/latency';
    await call('POST', '/v1/webhooks', { url: `http://127.0.0.1:${receiver.port}${latencyPath}`, events: ['project.*'] });
    const projects: string[] = [];
    for (let i = 0; i < 100; i++) projects.push((await call('POST', '/v1/projects', { name: `Bench ${i}` })).id as string);
    receiver.parse = true;

    const results: string[] = [];
    const runLatency = async (rate: number, seconds: number, label: string) => {
      const total = Math.round(rate * seconds);
      const interval = 1000 / rate;
      const responses: { key: string; at: number }[] = [];
      const firstArrival = receiver.arrivals.length;
      const started = performance.now();
      const inFlight: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const wait = started + i * interval - performance.now();
        if (wait > 0) await sleep(wait);
        inFlight.push((async () => {
          const body = i % 2 === 0
            ? await call('POST', '/v1/projects', { name: `${label || 'warm-up'} ${i}` })
            : await call('PATCH', `/v1/projects/${projects[i % projects.length]}`, { name: `${label || 'warm-up'} ${i}` });
          const at = performance.now();
          responses.push({ key: `${i % 2 === 0 ? 'project.created' : 'project.updated'}|${body.id}|${body.updated_at}`, at });
        })());
      }
      await Promise.all(inFlight);
      const elapsed = (performance.now() - started) / 1000;
      const deadline = Date.now() + 30_000;
      while (responses.some((r) => !receiver.byKey.has(r.key)) && Date.now() < deadline) await sleep(20);
      const latencies: number[] = [];
      let early = 0;
      let missing = 0;
      for (const r of responses) {
        const arrived = receiver.byKey.get(r.key);
        if (arrived === undefined) { missing++; continue; }
        if (arrived < r.at) early++;
        latencies.push(Math.max(0, arrived - r.at));
      }
      latencies.sort((a, b) => a - b);
      const check = exactlyOnce(receiver.arrivals.slice(firstArrival), total);
      const line = `| ${label} | ${total} in ${elapsed.toFixed(1)} s | ${percentile(latencies, 50).toFixed(1)} | ${percentile(latencies, 99).toFixed(1)} | ${latencies.at(-1)!.toFixed(1)} | ${early} | ${check.lost + missing} lost, ${check.duplicated} duplicated |`;
      if (label) results.push(line);
    };
    await runLatency(50, 2, ''); // warm-up
    await runLatency(1, SECONDS, '1 change/s');
    await runLatency(100, SECONDS, '100 changes/s');
    console.log('| rate | changes | p50 ms | p99 ms | max ms | delivered before the response | exactly once |');
    console.log('|---|---:|---:|---:|---:|---:|---|');
    for (const line of results) console.log(line);
    receiver.parse = false;

    // (b) throughput: EVENTS × ENDPOINTS deliveries queued in one transaction
    const bulkPaths: string[] = [];
    const endpointIds: string[] = [];
    for (let e = 0; e < ENDPOINTS; e++) {
      const p = `/bulk/${e}`;
      bulkPaths.push(p);
      endpointIds.push((await call('POST', '/v1/webhooks', { url: `http://127.0.0.1:${receiver.port}${p}`, events: ['task.*'] })).id as string);
    }
    const total = EVENTS * ENDPOINTS;
    const firstArrival = receiver.arrivals.length;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const now = new Date();
    const events = Array.from({ length: EVENTS }, (_, i) => {
      const id = newId('event');
      const payload = JSON.stringify({
        id, event: 'task.updated', project_id: projects[i % projects.length], workspace_id: ws.workspace.id, created_at: now.toISOString(),
        data: { id: `tsk_bench${i}`, title: `Task ${i}`, status: 'open', project_id: projects[i % projects.length], assignee_id: null, due_date: null, updated_at: now.toISOString() },
      });
      return { id, payload };
    });
    await client.query('begin');
    await client.query(`
      insert into events (id, workspace_id, project_id, event, payload, created_at)
      select id, $1, null, 'task.updated', payload, $2 from unnest($3::text[], $4::text[]) as t(id, payload)`,
    [ws.workspace.id, now, events.map((e) => e.id), events.map((e) => e.payload)]);
    const deliveryIds = Array.from({ length: total }, () => newId('delivery'));
    await client.query(`
      insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, next_attempt_at)
      select d.id, $1, e.endpoint_id, e.event_id, $2
        from (select event_id, endpoint_id, row_number() over () as n
                from unnest($3::text[]) as ev(event_id) cross join unnest($4::text[]) as ep(endpoint_id)) e
        join (select id, row_number() over () as n from unnest($5::text[]) as d(id)) d using (n)`,
    [ws.workspace.id, now, events.map((e) => e.id), endpointIds, deliveryIds]);
    await client.query(`select pg_notify($1, '')`, [DELIVERIES_CHANNEL]);
    const workerCpu0 = await cpuMicros(worker.pid!);
    const pgCpu0 = await postgresCpu();
    const benchCpu0 = process.cpuUsage();
    await client.query('commit');
    const committed = performance.now();
    let allRecorded = 0;
    for (;;) {
      const { rows: [row] } = await client.query<{ n: number }>(
        `select count(*)::int as n from webhook_deliveries where endpoint_id = any($1) and status <> 'succeeded'`, [endpointIds]);
      if (row!.n === 0) { allRecorded = performance.now(); break; }
      if (performance.now() - committed > 300_000) throw new Error(`${row!.n} deliveries still not succeeded after 5 minutes`);
      await sleep(25);
    }
    const workerCpu = await cpuMicros(worker.pid!) - workerCpu0;
    const pgCpu = await postgresCpu() - pgCpu0;
    const benchCpu = process.cpuUsage(benchCpu0);
    const bulk = receiver.arrivals.slice(firstArrival);
    const lastArrival = Math.max(...bulk.map((a) => a.at));
    const check = exactlyOnce(bulk, total);
    const { rows: [attempts] } = await client.query<{ n: number }>(
      `select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = any($1)`, [endpointIds]);
    await client.end();
    const seconds = (allRecorded - committed) / 1000;
    console.log(`\n| queued | endpoints | all received | all recorded succeeded | deliveries/s | attempts recorded | exactly once | CPU µs/delivery: worker / PostgreSQL / bench (receiver) |`);
    console.log('|---:|---:|---:|---:|---:|---:|---|---|');
    console.log(`| ${total} | ${ENDPOINTS} | ${((lastArrival - committed) / 1000).toFixed(2)} s | ${seconds.toFixed(2)} s | **${(total / seconds).toFixed(0)}** | ${attempts!.n} | ${check.lost} lost, ${check.duplicated} duplicated | ${(workerCpu / total).toFixed(0)} / ${(pgCpu / total).toFixed(0)} / ${((benchCpu.user + benchCpu.system) / total).toFixed(0)} |`);
    await handle.close();
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => c.exitCode !== null ? r(null) : c.once('exit', r))));
    await receiver.close().catch(() => undefined);
    await database.drop();
  }
}

await main();
