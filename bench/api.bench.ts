/**
 * `npm run bench`: the API against its bare ceiling, in one run on one machine.
 *
 * Seeds 10,000 projects (with crews and tags), 10,000 photos, tasks and events (bench/seed.ts) into
 * a fresh database (DATABASE_URL's server, or an embedded one), then runs autocannon (50
 * connections) against the real API (`jobsite serve` in a child process) and against
 * bench/ceiling-server.ts (bare Fastify + pg, the minimal query for the same resource), and prints
 * per endpoint req/s, p50/p99 latency, and CPU µs per request of the server process and of
 * PostgreSQL (the server's processes, from /proc, when it runs on this machine).
 *
 *   BENCH_SECONDS=5 (per measurement)  BENCH_CONNECTIONS=50  BENCH_PROJECTS=10000
 *   BENCH_ONLY=photos (only the endpoints whose name contains it; several separated by commas)  BENCH_PROFILE=1 (--cpu-prof the API)
 *   BENCH_TCP=1: when the database is reached through a Unix-domain socket (the embedded server),
 *   also measure a second API process connected over loopback TCP, in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import autocannon from 'autocannon';
import { seed } from './seed.ts';
import { cpuMicros, createBenchDatabase, freePort, postgresCpuMicros, postgresCpuSpent, postmasterPid } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 10_000);

async function startChild(args: string[], env: Record<string, string>, port: number): Promise<ChildProcess> {
  const profile = process.env.BENCH_PROFILE && args[0] === 'src/main.ts' ? ['--cpu-prof', '--cpu-prof-dir=.tmp/prof'] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', ...args], {
    env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.status < 500) return child;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${args.join(' ')} did not start`);
}

interface Target { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }
interface Measured { rps: number; p50: number; p99: number; failed: number; serverUs: number; postgresUs: number | null }

async function measure(target: Target, serverPid: number, postmaster: number | null): Promise<Measured> {
  const run = (duration: number) => autocannon({ url: target.url, connections: CONNECTIONS, duration, method: target.method ?? 'GET', headers: target.headers, body: target.body });
  await run(2); // warm-up: JIT, pool, caches
  const serverBefore = await cpuMicros(serverPid);
  const postgresBefore = postmaster ? await postgresCpuMicros(postmaster) : null;
  const r = await run(SECONDS);
  const serverUs = await cpuMicros(serverPid) - serverBefore;
  const postgresUs = postmaster && postgresBefore ? postgresCpuSpent(postgresBefore, await postgresCpuMicros(postmaster)) : null;
  const total = Math.max(1, r.requests.total);
  return {
    rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, failed: r.errors + r.timeouts + r.non2xx,
    serverUs: serverUs / total, postgresUs: postgresUs === null ? null : postgresUs / total,
  };
}

const cpu = (m: Measured) => `${m.serverUs.toFixed(0)} / ${m.postgresUs === null ? '–' : m.postgresUs.toFixed(0)}`;
const totalCpu = (m: Measured) => m.serverUs + (m.postgresUs ?? 0);

async function main() {
  const database = await createBenchDatabase();
  const { url } = database;
  const children: ChildProcess[] = [];
  try {
    const s = await seed(url, PROJECTS);
    const postmaster = await postmasterPid(url);
    const apiPort = await freePort();
    const ceilingPort = await freePort();
    const apiServer = await startChild(['src/main.ts', 'serve'], { DATABASE_URL: url, LOG_LEVEL: 'warn', JOBSITE_RATE_LIMIT: '100000000' }, apiPort);
    const ceilingServer = await startChild(['bench/ceiling-server.ts'], { DATABASE_URL: url, BENCH_WORKSPACE_ID: s.workspaceId, BENCH_USER_ID: s.adminId }, ceilingPort);
    children.push(apiServer, ceilingServer);
    const tcpUrl = new URL(url);
    const overSocket = tcpUrl.searchParams.has('host');
    tcpUrl.searchParams.delete('host');
    const tcpPort = process.env.BENCH_TCP && overSocket ? await freePort() : null;
    const apiOverTcp = tcpPort === null ? null
      : await startChild(['src/main.ts', 'serve'], { DATABASE_URL: tcpUrl.toString(), LOG_LEVEL: 'warn', JOBSITE_RATE_LIMIT: '100000000' }, tcpPort);
    if (apiOverTcp) children.push(apiOverTcp);
    const api = (path: string, extra: Omit<Target, 'url'> = {}): Target =>
      ({ url: `http://127.0.0.1:${apiPort}${path}`, ...extra, headers: { authorization: `Bearer ${s.apiKey}`, ...extra.headers } });
    const bare = (path: string, extra: Omit<Target, 'url'> = {}): Target => ({ url: `http://127.0.0.1:${ceilingPort}${path}`, ...extra });
    const json = { 'content-type': 'application/json' };

    const cases = [
      { name: 'GET /v1/projects/{id}', api: api(`/v1/projects/${s.sampleProjectId}`), bare: bare(`/projects/${s.sampleProjectId}`) },
      { name: 'GET /v1/projects?limit=50', api: api('/v1/projects?limit=50'), bare: bare('/projects') },
      {
        name: 'POST /v1/projects',
        api: api('/v1/projects', { method: 'POST', headers: json, body: JSON.stringify({ name: 'Bench project', address: { city: 'Springfield' } }) }),
        bare: bare('/projects', { method: 'POST', headers: json, body: JSON.stringify({ name: 'Bench project', city: 'Springfield' }) }),
      },
      { name: 'GET /v1/photos?limit=50', api: api('/v1/photos?limit=50'), bare: bare('/photos') },
      { name: 'GET /v1/tasks?limit=50', api: api('/v1/tasks?limit=50'), bare: bare('/tasks') },
      { name: 'GET /v1/events?limit=50', api: api('/v1/events?limit=50'), bare: bare('/events') },
    ];
    console.log(`\nJobsite API vs bare ceiling — ${PROJECTS} projects, ${CONNECTIONS} connections, ${SECONDS} s each, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`PostgreSQL reached through ${overSocket ? 'its Unix-domain socket' : 'TCP'}${apiOverTcp ? '; last columns: a second API process over loopback TCP' : ''}\n`);
    const tcpHead = apiOverTcp ? ' API over TCP req/s | CPU µs/req over TCP: process / PG |' : '';
    console.log(`| endpoint | API req/s | bare req/s | req/s ratio | API p50 / p99 ms | bare p50 / p99 ms | CPU µs/req API: process / PG | bare: process / PG | CPU ratio (bare / API) |${tcpHead}`);
    console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|${apiOverTcp ? '---:|---:|' : ''}`);
    for (const c of cases.filter((x) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').some((only) => x.name.includes(only)))) {
      const b = await measure(c.bare, ceilingServer.pid!, postmaster);
      const a = await measure(c.api, apiServer.pid!, postmaster);
      const t = apiOverTcp ? await measure({ ...c.api, url: c.api.url.replace(`:${apiPort}/`, `:${tcpPort}/`) }, apiOverTcp.pid!, postmaster) : null;
      const failed = a.failed + b.failed + (t?.failed ?? 0);
      console.log(`| ${c.name} | ${a.rps.toFixed(0)} | ${b.rps.toFixed(0)} | **${(a.rps / b.rps).toFixed(2)}**${failed ? ` (${failed} failed requests!)` : ''} | ${a.p50} / ${a.p99} | ${b.p50} / ${b.p99} | ${cpu(a)} | ${cpu(b)} | **${(totalCpu(b) / totalCpu(a)).toFixed(2)}** |` +
        (t ? ` ${t.rps.toFixed(0)} | ${cpu(t)} |` : ''));
    }
    console.log(`\nload after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await database.drop();
  }
}

await main();
