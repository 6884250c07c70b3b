/**
 * `npm run bench`: the API against its ceiling, in one run on one machine.
 *
 * Seeds 10,000 projects (with crews and tags) into a fresh database (DATABASE_URL's server, or an embedded one), then
 * runs autocannon (50 connections) against the real API (`jobsite serve` in a child process)
 * and against bench/ceiling-server.ts (bare Fastify + the same pg query), for
 *   GET /v1/projects?limit=50, GET /v1/projects/{id}, POST /v1/projects
 * and prints req/s, p50 and p99 latency and the API/ceiling ratio for each.
 *
 *   BENCH_SECONDS=10 (per measurement)  BENCH_CONNECTIONS=50
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import autocannon from 'autocannon';
import { openDatabase } from '../src/db/database.ts';
import { cpuMicros, createBenchDatabase, freePort } from './support.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
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

interface Measured { rps: number; p50: number; p99: number; errors: number; non2xx: number; cpuUsPerRequest: number }

async function measure(url: string, pid: number, opts: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }): Promise<Measured> {
  const run = (duration: number) => autocannon({ url, connections: CONNECTIONS, duration, method: opts.method ?? 'GET', headers: opts.headers, body: opts.body });
  await run(2); // warm-up: JIT, pool, caches
  const cpuBefore = await cpuMicros(pid);
  const r = await run(SECONDS);
  const cpu = await cpuMicros(pid) - cpuBefore;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, cpuUsPerRequest: cpu / Math.max(1, r.requests.total) };
}

async function main() {
  const database = await createBenchDatabase();
  const { url } = database;
  const children: ChildProcess[] = [];
  try {
    const handle = openDatabase(url);
    const ws = await new WorkspacesService(handle.db).provision({ name: 'Bench', adminEmail: 'bench@example.test' });
    // 10,000 projects, each with an address and one or two crew members: the list aggregates member_ids.
    const crew = [ws.admin.id];
    for (let i = 0; i < 4; i++) {
      const id = `usr_bench${i}`.padEnd(30, '0');
      await handle.pool.query(`insert into users (id, workspace_id, email, handle, role) values ($1, $2, $3, $4, 'standard')`, [id, ws.workspace.id, `crew${i}@example.test`, `crew${i}`]);
      crew.push(id);
    }
    await handle.pool.query(`
      insert into projects (id, workspace_id, name, street_address_1, city, state, postal_code, country, lat, lon, created_by, created_at, updated_at)
      select 'prj_' || lpad(to_hex(g), 26, '0'), $1, 'Project ' || g, g || ' Main Street', 'Springfield', 'IL', '62701', 'US',
             39.78 + g / 100000.0, -89.65 + g / 100000.0, $2, now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval
      from generate_series(1, $3) g`, [ws.workspace.id, ws.admin.id, PROJECTS]);
    await handle.pool.query(`
      insert into project_members (project_id, user_id, workspace_id)
      select p.id, ($2::text[])[1 + (abs(hashtext(p.id)) % 5)], $1 from projects p where p.workspace_id = $1
      union
      select p.id, ($2::text[])[1 + (abs(hashtext(p.id || 'x')) % 5)], $1 from projects p where p.workspace_id = $1`, [ws.workspace.id, crew]);
    // 20 tags; two thirds of the projects carry one or two: the list aggregates their tags too.
    await handle.pool.query(`
      insert into tags (id, workspace_id, name, color)
      select 'tag_bench' || lpad(g::text, 21, '0'), $1, 'Tag ' || g, '#' || lpad(to_hex(g * 40000), 6, '0') from generate_series(1, 20) g`, [ws.workspace.id]);
    await handle.pool.query(`
      insert into project_tags (project_id, tag_id, workspace_id)
      select p.id, 'tag_bench' || lpad((1 + abs(hashtext(p.id)) % 20)::text, 21, '0'), $1 from projects p where p.workspace_id = $1 and abs(hashtext(p.id || 't')) % 3 > 0
      union
      select p.id, 'tag_bench' || lpad((1 + abs(hashtext(p.id || 'y')) % 20)::text, 21, '0'), $1 from projects p where p.workspace_id = $1 and abs(hashtext(p.id || 't')) % 3 = 2`, [ws.workspace.id]);
    await handle.pool.query('analyze');
    const { rows: [sample] } = await handle.pool.query(`select id from projects where workspace_id = $1 order by id desc offset 25 limit 1`, [ws.workspace.id]);
    await handle.close();

    const apiPort = await freePort();
    const ceilingPort = await freePort();
    const apiServer = await startChild(['src/main.ts', 'serve'], { DATABASE_URL: url, LOG_LEVEL: 'warn', JOBSITE_RATE_LIMIT: '100000000' }, apiPort);
    const ceilingServer = await startChild(['bench/ceiling-server.ts'], { DATABASE_URL: url, BENCH_WORKSPACE_ID: ws.workspace.id, BENCH_USER_ID: ws.admin.id }, ceilingPort);
    children.push(apiServer, ceilingServer);
    const auth = { authorization: `Bearer ${ws.api_key.key}` };
    const json = { 'content-type': 'application/json' };
    const body = JSON.stringify({ name: 'Bench project', address: { city: 'Springfield' } });
    const ceilingBody = JSON.stringify({ name: 'Bench project', city: 'Springfield' });

    const cases = [
      { name: 'GET /v1/projects?limit=50', api: { url: `http://127.0.0.1:${apiPort}/v1/projects?limit=50`, headers: auth }, ceiling: { url: `http://127.0.0.1:${ceilingPort}/projects` } },
      { name: 'GET /v1/projects/{id}', api: { url: `http://127.0.0.1:${apiPort}/v1/projects/${sample.id}`, headers: auth }, ceiling: { url: `http://127.0.0.1:${ceilingPort}/projects/${sample.id}` } },
      { name: 'POST /v1/projects', api: { url: `http://127.0.0.1:${apiPort}/v1/projects`, method: 'POST' as const, headers: { ...auth, ...json }, body }, ceiling: { url: `http://127.0.0.1:${ceilingPort}/projects`, method: 'POST' as const, headers: json, body: ceilingBody } },
    ];
    console.log(`\nJobsite API vs ceiling — ${PROJECTS} projects, ${CONNECTIONS} connections, ${SECONDS} s each, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}\n`);
    console.log('| endpoint | API req/s | API p50 / p99 ms | ceiling req/s | ceiling p50 / p99 ms | API / ceiling | server CPU µs/req: API / ceiling |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const c of cases.filter((x) => !process.env.BENCH_ONLY || x.name.includes(process.env.BENCH_ONLY))) {
      const ceiling = await measure(c.ceiling.url, ceilingServer.pid!, c.ceiling);
      const api = await measure(c.api.url, apiServer.pid!, c.api);
      const bad = api.errors + api.non2xx + ceiling.errors + ceiling.non2xx;
      console.log(`| ${c.name} | ${api.rps.toFixed(0)} | ${api.p50} / ${api.p99} | ${ceiling.rps.toFixed(0)} | ${ceiling.p50} / ${ceiling.p99} | ${(100 * api.rps / ceiling.rps).toFixed(0)} %${bad ? ` (${bad} failed requests!)` : ''} | ${api.cpuUsPerRequest.toFixed(0)} / ${ceiling.cpuUsPerRequest.toFixed(0)} |`);
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    await database.drop();
  }
}

await main();
