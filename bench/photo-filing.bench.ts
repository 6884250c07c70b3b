/**
 * `npm run bench:filing`: how long filing one photo by its position takes (docs/photos.md,
 * "Photos that file themselves") in a workspace of BENCH_PROJECTS projects.
 *
 * Setup: a fresh database (DATABASE_URL's server, or an embedded one), one workspace whose
 * projects are spread over ~100 × 100 km: a third with a polygon fence (a 60–200 m square), a
 * third with a radius fence (50–300 m), a third without a fence. Then BENCH_LOOKUPS positions,
 * half near a project, half anywhere, each filed with the real PhotoFiling (the job's code: two
 * index probes and the exact tests), by an admin and by a restricted user on 20 crews. In the same
 * run, for scale: the naive way (read every project of the workspace and test each) on the same
 * positions, and EXPLAIN of both probes (they must use the GiST indexes of 022_photo_filing.sql).
 *
 *   BENCH_PROJECTS=10000  BENCH_LOOKUPS=400
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/database.ts';
import { PhotoFiling } from '../src/features/photos/photos.filing.ts';
import { fenceContains, geofenceColumns, distanceMeters, type Geofence } from '../src/features/projects/projects.geofence.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';
import { newId } from '../src/ids.ts';
import { createBenchDatabase } from './support.ts';

const n = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PROJECTS = n('BENCH_PROJECTS', 10_000);
const LOOKUPS = n('BENCH_LOOKUPS', 400);
const REACH = 300;

// A deterministic spread (a small LCG), so runs compare.
let state = 42;
const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const ORIGIN = { lat: 41.4, lon: -88.2 };
const place = () => ({ lat: ORIGIN.lat + random() * 0.9, lon: ORIGIN.lon + random() * 1.2 });
const metres = (from: { lat: number; lon: number }, north: number, east: number) =>
  ({ lat: from.lat + north / 111_195, lon: from.lon + east / (111_195 * Math.cos((from.lat * Math.PI) / 180)) });

const database = await createBenchDatabase();
const handle = openDatabase(database.url, { max: 4 });
const db = handle.db;
try {
  const ws = await new WorkspacesService(db).provision({ name: 'Bench', adminEmail: 'bench@example.test' });
  const workspaceId = ws.workspace.id;
  const admin = ws.admin.id;
  const restricted = newId('user');
  await db.insertInto('users').values({ id: restricted, workspace_id: workspaceId, email: 'field@example.test', handle: 'field', role: 'restricted' }).execute();

  let seeded = performance.now();
  const sites: { id: string; lat: number; lon: number }[] = [];
  for (let batch = 0; batch < PROJECTS; batch += 500) {
    const rows = [];
    for (let i = batch; i < Math.min(PROJECTS, batch + 500); i++) {
      const at = place();
      const kind = i % 3;
      let fence: Geofence | null = null;
      if (kind === 0) {
        const half = 30 + random() * 70;
        const sw = metres(at, -half, -half);
        const ne = metres(at, half, half);
        fence = { type: 'Polygon', coordinates: [[[sw.lon, sw.lat], [ne.lon, sw.lat], [ne.lon, ne.lat], [sw.lon, ne.lat], [sw.lon, sw.lat]]] };
      } else if (kind === 1) {
        fence = { radius_m: Math.round(50 + random() * 250) };
      }
      const id = newId('project');
      sites.push({ id, ...at });
      rows.push({ id, workspace_id: workspaceId, name: `Site ${i}`, created_by: admin, lat: at.lat, lon: at.lon, ...geofenceColumns(fence, at) });
    }
    await db.insertInto('projects').values(rows).execute();
  }
  await db.insertInto('project_members').values(sites.slice(0, 20).map((s) => ({ project_id: s.id, user_id: restricted, workspace_id: workspaceId, added_by: admin }))).execute();
  await sql`analyze projects`.execute(db);
  seeded = performance.now() - seeded;

  const points = Array.from({ length: LOOKUPS }, (_, i) => {
    if (i % 2 === 1) return place();
    const site = sites[Math.floor(random() * sites.length)]!;
    return metres(site, (random() - 0.5) * 400, (random() - 0.5) * 400);
  });

  const filing = new PhotoFiling(REACH);
  const timed = async (label: string, run: (p: { lat: number; lon: number }) => Promise<unknown>) => {
    for (const p of points.slice(0, 20)) await run(p); // warm-up
    const times: number[] = [];
    const outcomes = new Map<string, number>();
    for (const p of points) {
      const started = performance.now();
      const result = await run(p);
      times.push(performance.now() - started);
      const key = result === null ? 'unfiled' : (result as { by?: string }).by ?? 'filed';
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    times.sort((a, b) => a - b);
    const q = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))]!.toFixed(2);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(`| ${label} | ${mean.toFixed(2)} | ${q(0.5)} | ${q(0.99)} | ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')} |`);
    return mean;
  };

  /** The naive way, for scale: every project of the workspace read and tested. */
  const naive = async (p: { lat: number; lon: number }) => {
    const rows = await db.selectFrom('projects').select(['id', 'geofence', 'lat', 'lon', 'geofence_area_m2'])
      .where('workspace_id', '=', workspaceId).where('status', '=', 'active').execute();
    let best: { id: string; area: number } | null = null;
    for (const r of rows) {
      if (r.geofence === null) continue;
      const center = r.lat === null || r.lon === null ? null : { lat: r.lat, lon: r.lon };
      if (fenceContains(r.geofence, center, p) && (best === null || r.geofence_area_m2! < best.area)) best = { id: r.id, area: r.geofence_area_m2! };
    }
    if (best) return { by: 'geofence' };
    let nearest: number | null = null;
    for (const r of rows) {
      if (r.geofence !== null || r.lat === null || r.lon === null) continue;
      const d = distanceMeters(p, { lat: r.lat, lon: r.lon });
      if (d <= REACH && (nearest === null || d < nearest)) nearest = d;
    }
    return nearest === null ? null : { by: 'nearest' };
  };

  console.log(`\n${PROJECTS} projects in one workspace (seeded in ${(seeded / 1000).toFixed(1)} s), ${LOOKUPS} positions (half within 200 m of a project)\n`);
  console.log('| lookup | mean ms | p50 ms | p99 ms | outcome |');
  console.log('|---|---:|---:|---:|---|');
  const indexed = await timed('PhotoFiling, admin uploader', (p) => filing.projectFor(db, { workspace_id: workspaceId, creator_id: admin }, p));
  await timed('PhotoFiling, restricted uploader (20 crews)', (p) => filing.projectFor(db, { workspace_id: workspaceId, creator_id: restricted }, p));
  const scan = await timed('naive: read every project, test each', naive);
  console.log(`\nnaive / indexed mean: ${(scan / indexed).toFixed(0)}×`);

  const p = points[0]!;
  const plan = async (label: string, query: ReturnType<typeof sql>) => {
    const { rows } = await sql<{ 'QUERY PLAN': string }>`explain ${query}`.execute(db);
    console.log(`\n${label}:\n${rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`);
  };
  await plan('fences around a point', sql`select id from projects p where p.workspace_id = ${workspaceId} and p.status = 'active' and p.geofence is not null
    and box(point(p.geofence_min_lon, p.geofence_min_lat), point(p.geofence_max_lon, p.geofence_max_lat)) @> box(point(${p.lon}, ${p.lat}), point(${p.lon}, ${p.lat}))`);
  await plan('unfenced projects near a point', sql`select id from projects p where p.workspace_id = ${workspaceId} and p.status = 'active'
    and p.lat is not null and p.geofence is null and point(p.lon, p.lat) <@ box(point(${p.lon - 0.004}, ${p.lat - 0.003}), point(${p.lon + 0.004}, ${p.lat + 0.003}))`);
} finally {
  await handle.close();
  await database.drop();
}
